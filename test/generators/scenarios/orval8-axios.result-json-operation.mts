// The result as JSON through its own operation (`GET /v3/transcriptions/result/{id}/json`, answering only
// `application/json`), with orval 8's axios client, as generated.
import axios from 'axios';
import { getScribeAPI } from './client/api.ts';
import { attempt, check, env, EXPECTED_TEXT, report, shown, taskId } from './harness.mts';

axios.defaults.baseURL = env.baseUrl;
axios.defaults.headers.common.Authorization = `Bearer ${env.apiKey}`;
const api = getScribeAPI();

await attempt('result-json-operation', 'generated', async () => {
  const { data } = await api.getTranscriptionResultJson(taskId());
  check(data.text === EXPECTED_TEXT, `result ${shown(data)}`);
});

report();
