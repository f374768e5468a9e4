// The v2 result link's text file through its own operation (`GET /v2/results/{id}.txt`, answering only `text/plain`),
// called with the link's id, `expires` and `signature`, with openapi-fetch: as generated, then with `parseAs: 'text'`.
import createClient from 'openapi-fetch';
import type { paths } from './client/schema.js';
import { attempt, checkText, env, report, v2Link } from './harness.mts';

const client = createClient<paths>({ baseUrl: env.baseUrl });
const { id, expires, signature } = v2Link('text');

await attempt('v2-result-text-operation', 'generated', async () => {
  checkText(
    (await client.GET('/v2/results/{id}.txt', { params: { path: { id }, query: { expires, signature } } })).data,
  );
});
await attempt('v2-result-text-operation', 'option', async () => {
  checkText(
    (
      await client.GET('/v2/results/{id}.txt', {
        params: { path: { id }, query: { expires, signature } },
        parseAs: 'text',
      })
    ).data,
  );
});

report();
