// The v2 result link's text file through its own operation (`GET /v2/results/{id}.txt`, answering only `text/plain`),
// called with the link's id, `expires` and `signature`, with orval's axios client: as generated, then with
// `responseType: 'text'`.
import axios from 'axios';
import { getScribeAPI } from './client/api.ts';
import { attempt, checkText, env, report, v2Link } from './harness.mts';

// No credentials: the link's query is the credential.
axios.defaults.baseURL = env.baseUrl;
const api = getScribeAPI();
const { id, expires, signature } = v2Link('text');

await attempt('v2-result-text-operation', 'generated', async () => {
  checkText((await api.downloadV2TranscriptionText(id, { expires, signature })).data);
});
await attempt('v2-result-text-operation', 'option', async () => {
  checkText((await api.downloadV2TranscriptionText(id, { expires, signature }, { responseType: 'text' })).data);
});

report();
