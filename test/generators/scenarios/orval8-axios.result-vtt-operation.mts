// The result as VTT through its own operation (`GET /v3/transcriptions/result/{id}/vtt`, answering only
// `text/vtt`), with orval 8's axios client: as generated, then with `responseType: 'text'`.
import axios from 'axios';
import { getScribeAPI } from './client/api.ts';
import { attempt, checkVtt, env, report, taskId } from './harness.mts';

axios.defaults.baseURL = env.baseUrl;
axios.defaults.headers.common.Authorization = `Bearer ${env.apiKey}`;
const api = getScribeAPI();

await attempt('result-vtt-operation', 'generated', async () => {
  checkVtt((await api.getTranscriptionResultVtt(taskId())).data);
});
await attempt('result-vtt-operation', 'option', async () => {
  checkVtt((await api.getTranscriptionResultVtt(taskId(), { responseType: 'text' })).data);
});

report();
