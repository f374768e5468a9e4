// The result as SRT through its own operation (`GET /v3/transcriptions/result/{id}/srt`, answering only
// `application/x-subrip`), with orval 8's fetch client.
import { getTranscriptionResultSrt } from './client/api.ts';
import { attempt, checkSrt, env, report, taskId } from './harness.mts';

const auth: RequestInit = { headers: { Authorization: `Bearer ${env.apiKey}` } };

await attempt('result-srt-operation', 'generated', async () => {
  checkSrt((await getTranscriptionResultSrt(taskId(), auth)).data);
});

report();
