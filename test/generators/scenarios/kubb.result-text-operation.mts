// The result as plain text through its own operation (`GET /v3/transcriptions/result/{id}/text`, answering only
// `text/plain`), with kubb's client: as generated, then with `responseType: 'text'`.
import { setConfig } from '@kubb/plugin-client/clients/axios';
import { getTranscriptionResultText } from './client/index.ts';
import { attempt, checkText, env, report, taskId } from './harness.mts';

setConfig({ baseURL: env.baseUrl, headers: { Authorization: `Bearer ${env.apiKey}` } });

await attempt('result-text-operation', 'generated', async () => {
  checkText(await getTranscriptionResultText(taskId()));
});
await attempt('result-text-operation', 'option', async () => {
  checkText(await getTranscriptionResultText(taskId(), { responseType: 'text' }));
});

report();
