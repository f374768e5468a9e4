// The v2 result link's PDF file through its own operation (`GET /v2/results/{id}.pdf`, answering only
// `application/pdf`), called with the link's id, `expires` and `signature`, with orval's fetch client: as generated.
import { downloadV2TranscriptionPdf } from './client/api.ts';
import { attempt, checkPdf, report, v2Link } from './harness.mts';

const { id, expires, signature } = v2Link('pdf');

await attempt('v2-result-pdf-operation', 'generated', async () => {
  await checkPdf((await downloadV2TranscriptionPdf(id, { expires, signature })).data);
});

report();
