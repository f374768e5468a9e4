// The result as SRT through its own operation (`GET /v3/transcriptions/result/{id}/srt`, answering only
// `application/x-subrip`), with kubb's client: as generated, then with `responseType: 'text'`.
import { setConfig } from '@kubb/plugin-client/clients/axios';
import { getTranscriptionResultSrt } from './client/index.ts';
import { attempt, checkSrt, env, report, taskId } from './harness.mts';

setConfig({ baseURL: env.baseUrl, headers: { Authorization: `Bearer ${env.apiKey}` } });

await attempt('result-srt-operation', 'generated', async () => {
  checkSrt(await getTranscriptionResultSrt(taskId()));
});
await attempt('result-srt-operation', 'option', async () => {
  checkSrt(await getTranscriptionResultSrt(taskId(), { responseType: 'text' }));
});

report();
