// The v2 result link's PDF file through its own operation (`GET /v2/results/{id}.pdf`, answering only
// `application/pdf`), called with the link's id, `expires` and `signature`, with orval's axios client: as generated,
// then with `responseType: 'arraybuffer'`.
import axios from 'axios';
import { getScribeAPI } from './client/api.ts';
import { attempt, checkPdf, env, report, v2Link } from './harness.mts';

// No credentials: the link's query is the credential.
axios.defaults.baseURL = env.baseUrl;
const api = getScribeAPI();
const { id, expires, signature } = v2Link('pdf');

await attempt('v2-result-pdf-operation', 'generated', async () => {
  await checkPdf((await api.downloadV2TranscriptionPdf(id, { expires, signature })).data);
});
await attempt('v2-result-pdf-operation', 'option', async () => {
  await checkPdf(
    (await api.downloadV2TranscriptionPdf(id, { expires, signature }, { responseType: 'arraybuffer' })).data,
  );
});

report();
