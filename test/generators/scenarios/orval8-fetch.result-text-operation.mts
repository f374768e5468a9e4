// The result as plain text through its own operation (`GET /v3/transcriptions/result/{id}/text`, answering only
// `text/plain`), with orval 8's fetch client.
import { getTranscriptionResultText } from './client/api.ts';
import { attempt, checkText, env, report, taskId } from './harness.mts';

const auth: RequestInit = { headers: { Authorization: `Bearer ${env.apiKey}` } };

await attempt('result-text-operation', 'generated', async () => {
  checkText((await getTranscriptionResultText(taskId(), auth)).data);
});

report();
