// The result as VTT through its own operation (`GET /v3/transcriptions/result/{id}/vtt`, answering only
// `text/vtt`), with openapi-fetch: as generated, then with `parseAs: 'text'`.
import createClient from 'openapi-fetch';
import type { paths } from './client/schema.js';
import { attempt, checkVtt, env, report, taskId } from './harness.mts';

const client = createClient<paths>({ baseUrl: env.baseUrl, headers: { Authorization: `Bearer ${env.apiKey}` } });

await attempt('result-vtt-operation', 'generated', async () => {
  checkVtt((await client.GET('/v3/transcriptions/result/{id}/vtt', { params: { path: { id: taskId() } } })).data);
});
await attempt('result-vtt-operation', 'option', async () => {
  checkVtt(
    (await client.GET('/v3/transcriptions/result/{id}/vtt', { params: { path: { id: taskId() } }, parseAs: 'text' }))
      .data,
  );
});

report();
