// The v2 result link's PDF file through its own operation (`GET /v2/results/{id}.pdf`, answering only
// `application/pdf`), called with the link's id, `expires` and `signature`, with kubb's client: as generated, then with
// `responseType: 'arraybuffer'`.
import { setConfig } from '@kubb/plugin-client/clients/axios';
import { downloadV2TranscriptionPdf } from './client/index.ts';
import { attempt, checkPdf, env, report, v2Link } from './harness.mts';

setConfig({ baseURL: env.baseUrl });
const { id, expires, signature } = v2Link('pdf');

await attempt('v2-result-pdf-operation', 'generated', async () => {
  await checkPdf(await downloadV2TranscriptionPdf(id, { expires, signature }));
});
await attempt('v2-result-pdf-operation', 'option', async () => {
  await checkPdf(await downloadV2TranscriptionPdf(id, { expires, signature }, { responseType: 'arraybuffer' }));
});

report();
