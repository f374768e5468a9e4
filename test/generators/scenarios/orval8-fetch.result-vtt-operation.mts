// The result as VTT through its own operation (`GET /v3/transcriptions/result/{id}/vtt`, answering only
// `text/vtt`), with orval 8's fetch client.
import { getTranscriptionResultVtt } from './client/api.ts';
import { attempt, checkVtt, env, report, taskId } from './harness.mts';

const auth: RequestInit = { headers: { Authorization: `Bearer ${env.apiKey}` } };

await attempt('result-vtt-operation', 'generated', async () => {
  checkVtt((await getTranscriptionResultVtt(taskId(), auth)).data);
});

report();
