// The result as VTT through its own operation (`GET /v3/transcriptions/result/{id}/vtt`, answering only
// `text/vtt`), with @hey-api/openapi-ts 0.99: as generated, then with `parseAs: 'text'`.
import { client } from './client/client.gen.ts';
import { getTranscriptionResultVtt } from './client/sdk.gen.ts';
import { attempt, checkVtt, env, report, taskId } from './harness.mts';

client.setConfig({ baseUrl: env.baseUrl, auth: () => env.apiKey });

await attempt('result-vtt-operation', 'generated', async () => {
  checkVtt((await getTranscriptionResultVtt({ path: { id: taskId() } })).data);
});
await attempt('result-vtt-operation', 'option', async () => {
  checkVtt((await getTranscriptionResultVtt({ path: { id: taskId() }, parseAs: 'text' })).data);
});

report();
