// The result as VTT through its own operation (`GET /v3/transcriptions/result/{id}/vtt`, answering only
// `text/vtt`), with kubb's client: as generated, then with `responseType: 'text'`.
import { setConfig } from '@kubb/plugin-client/clients/axios';
import { getTranscriptionResultVtt } from './client/index.ts';
import { attempt, checkVtt, env, report, taskId } from './harness.mts';

setConfig({ baseURL: env.baseUrl, headers: { Authorization: `Bearer ${env.apiKey}` } });

await attempt('result-vtt-operation', 'generated', async () => {
  checkVtt(await getTranscriptionResultVtt(taskId()));
});
await attempt('result-vtt-operation', 'option', async () => {
  checkVtt(await getTranscriptionResultVtt(taskId(), { responseType: 'text' }));
});

report();
