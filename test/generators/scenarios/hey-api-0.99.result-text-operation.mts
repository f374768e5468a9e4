// The result as plain text through its own operation (`GET /v3/transcriptions/result/{id}/text`, answering only
// `text/plain`), with @hey-api/openapi-ts 0.99: as generated, then with `parseAs: 'text'`.
import { client } from './client/client.gen.ts';
import { getTranscriptionResultText } from './client/sdk.gen.ts';
import { attempt, checkText, env, report, taskId } from './harness.mts';

client.setConfig({ baseUrl: env.baseUrl, auth: () => env.apiKey });

await attempt('result-text-operation', 'generated', async () => {
  checkText((await getTranscriptionResultText({ path: { id: taskId() } })).data);
});
await attempt('result-text-operation', 'option', async () => {
  checkText((await getTranscriptionResultText({ path: { id: taskId() }, parseAs: 'text' })).data);
});

report();
