// The result as plain text through its own operation (`GET /v3/transcriptions/result/{id}/text`, answering only
// `text/plain`), with orval 8's axios client: as generated, then with `responseType: 'text'`.
import axios from 'axios';
import { getScribeAPI } from './client/api.ts';
import { attempt, checkText, env, report, taskId } from './harness.mts';

axios.defaults.baseURL = env.baseUrl;
axios.defaults.headers.common.Authorization = `Bearer ${env.apiKey}`;
const api = getScribeAPI();

await attempt('result-text-operation', 'generated', async () => {
  checkText((await api.getTranscriptionResultText(taskId())).data);
});
await attempt('result-text-operation', 'option', async () => {
  checkText((await api.getTranscriptionResultText(taskId(), { responseType: 'text' })).data);
});

report();
