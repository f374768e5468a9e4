// The v2 result link's PDF file through its own operation (`GET /v2/results/{id}.pdf`, answering only
// `application/pdf`), called with the link's id, `expires` and `signature`, with @hey-api/openapi-ts: as generated,
// then with `parseAs: 'blob'`.
import { client } from './client/client.gen.ts';
import { downloadV2TranscriptionPdf } from './client/sdk.gen.ts';
import { attempt, checkPdf, env, report, v2Link } from './harness.mts';

client.setConfig({ baseUrl: env.baseUrl });
const { id, expires, signature } = v2Link('pdf');

await attempt('v2-result-pdf-operation', 'generated', async () => {
  await checkPdf((await downloadV2TranscriptionPdf({ path: { id }, query: { expires, signature } })).data);
});
await attempt('v2-result-pdf-operation', 'option', async () => {
  await checkPdf(
    (await downloadV2TranscriptionPdf({ path: { id }, query: { expires, signature }, parseAs: 'blob' })).data,
  );
});

report();
