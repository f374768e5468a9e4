// The result as SRT through its own operation (`GET /v3/transcriptions/result/{id}/srt`, answering only
// `application/x-subrip`), with openapi-fetch: as generated, then with `parseAs: 'text'`.
import createClient from 'openapi-fetch';
import type { paths } from './client/schema.js';
import { attempt, checkSrt, env, report, taskId } from './harness.mts';

const client = createClient<paths>({ baseUrl: env.baseUrl, headers: { Authorization: `Bearer ${env.apiKey}` } });

await attempt('result-srt-operation', 'generated', async () => {
  checkSrt((await client.GET('/v3/transcriptions/result/{id}/srt', { params: { path: { id: taskId() } } })).data);
});
await attempt('result-srt-operation', 'option', async () => {
  checkSrt(
    (await client.GET('/v3/transcriptions/result/{id}/srt', { params: { path: { id: taskId() } }, parseAs: 'text' }))
      .data,
  );
});

report();
