// The result as plain text through its own operation (`GET /v3/transcriptions/result/{id}/text`, answering only
// `text/plain`), with openapi-fetch: as generated, then with `parseAs: 'text'`.
import createClient from 'openapi-fetch';
import type { paths } from './client/schema.js';
import { attempt, checkText, env, report, taskId } from './harness.mts';

const client = createClient<paths>({ baseUrl: env.baseUrl, headers: { Authorization: `Bearer ${env.apiKey}` } });

await attempt('result-text-operation', 'generated', async () => {
  checkText((await client.GET('/v3/transcriptions/result/{id}/text', { params: { path: { id: taskId() } } })).data);
});
await attempt('result-text-operation', 'option', async () => {
  checkText(
    (await client.GET('/v3/transcriptions/result/{id}/text', { params: { path: { id: taskId() } }, parseAs: 'text' }))
      .data,
  );
});

report();
