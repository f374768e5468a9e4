// The result as JSON through its own operation (`GET /v3/transcriptions/result/{id}/json`, answering only
// `application/json`), with orval 8's fetch client.
import { getTranscriptionResultJson } from './client/api.ts';
import { attempt, check, env, EXPECTED_TEXT, report, shown, taskId } from './harness.mts';

const auth: RequestInit = { headers: { Authorization: `Bearer ${env.apiKey}` } };

await attempt('result-json-operation', 'generated', async () => {
  const answer = await getTranscriptionResultJson(taskId(), auth);
  check(answer.status === 200, `${answer.status}: ${shown(answer.data)}`);
  check(answer.data.text === EXPECTED_TEXT, `result ${shown(answer.data)}`);
});

report();
