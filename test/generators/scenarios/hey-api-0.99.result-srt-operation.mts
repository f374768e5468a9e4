// The result as SRT through its own operation (`GET /v3/transcriptions/result/{id}/srt`, answering only
// `application/x-subrip`), with @hey-api/openapi-ts 0.99: as generated, then with `parseAs: 'text'`.
import { client } from './client/client.gen.ts';
import { getTranscriptionResultSrt } from './client/sdk.gen.ts';
import { attempt, checkSrt, env, report, taskId } from './harness.mts';

client.setConfig({ baseUrl: env.baseUrl, auth: () => env.apiKey });

await attempt('result-srt-operation', 'generated', async () => {
  checkSrt((await getTranscriptionResultSrt({ path: { id: taskId() } })).data);
});
await attempt('result-srt-operation', 'option', async () => {
  checkSrt((await getTranscriptionResultSrt({ path: { id: taskId() }, parseAs: 'text' })).data);
});

report();
