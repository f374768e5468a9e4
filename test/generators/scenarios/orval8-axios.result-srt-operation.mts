// The result as SRT through its own operation (`GET /v3/transcriptions/result/{id}/srt`, answering only
// `application/x-subrip`), with orval 8's axios client: as generated, then with `responseType: 'text'`.
import axios from 'axios';
import { getScribeAPI } from './client/api.ts';
import { attempt, checkSrt, env, report, taskId } from './harness.mts';

axios.defaults.baseURL = env.baseUrl;
axios.defaults.headers.common.Authorization = `Bearer ${env.apiKey}`;
const api = getScribeAPI();

await attempt('result-srt-operation', 'generated', async () => {
  checkSrt((await api.getTranscriptionResultSrt(taskId())).data);
});
await attempt('result-srt-operation', 'option', async () => {
  checkSrt((await api.getTranscriptionResultSrt(taskId(), { responseType: 'text' })).data);
});

report();
