// The v2 result link's JSON file through its own operation (`GET /v2/results/{id}.json`, answering only
// `application/json`), called with the link's id, `expires` and `signature`, with openapi-fetch: as generated.
import createClient from 'openapi-fetch';
import type { paths } from './client/schema.js';
import { attempt, check, env, EXPECTED_TEXT, report, shown, v2Link } from './harness.mts';

const client = createClient<paths>({ baseUrl: env.baseUrl });
const { id, expires, signature } = v2Link('json');

await attempt('v2-result-json-operation', 'generated', async () => {
  const { data, error } = await client.GET('/v2/results/{id}.json', {
    params: { path: { id }, query: { expires, signature } },
  });
  check(data, `no result: ${shown(error)}`);
  check(data.text === EXPECTED_TEXT, `result ${shown(data)}`);
});

report();
