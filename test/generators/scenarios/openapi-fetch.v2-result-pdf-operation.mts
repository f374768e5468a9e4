// The v2 result link's PDF file through its own operation (`GET /v2/results/{id}.pdf`, answering only
// `application/pdf`), called with the link's id, `expires` and `signature`, with openapi-fetch: as generated, then with
// `parseAs: 'blob'`.
import createClient from 'openapi-fetch';
import type { paths } from './client/schema.js';
import { attempt, checkPdf, env, report, v2Link } from './harness.mts';

const client = createClient<paths>({ baseUrl: env.baseUrl });
const { id, expires, signature } = v2Link('pdf');

await attempt('v2-result-pdf-operation', 'generated', async () => {
  await checkPdf(
    (await client.GET('/v2/results/{id}.pdf', { params: { path: { id }, query: { expires, signature } } })).data,
  );
});
await attempt('v2-result-pdf-operation', 'option', async () => {
  await checkPdf(
    (
      await client.GET('/v2/results/{id}.pdf', {
        params: { path: { id }, query: { expires, signature } },
        parseAs: 'blob',
      })
    ).data,
  );
});

report();
