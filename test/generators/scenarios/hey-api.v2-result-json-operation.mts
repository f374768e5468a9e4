// The v2 result link's JSON file through its own operation (`GET /v2/results/{id}.json`, answering only
// `application/json`), called with the link's id, `expires` and `signature`, with @hey-api/openapi-ts: as generated.
import { client } from './client/client.gen.ts';
import { downloadV2TranscriptionJson } from './client/sdk.gen.ts';
import { attempt, check, env, EXPECTED_TEXT, report, shown, v2Link } from './harness.mts';

client.setConfig({ baseUrl: env.baseUrl });
const { id, expires, signature } = v2Link('json');

await attempt('v2-result-json-operation', 'generated', async () => {
  const { data, error, response } = await downloadV2TranscriptionJson({ path: { id }, query: { expires, signature } });
  check(data, `${response?.status}: ${shown(error)}`);
  check(data.text === EXPECTED_TEXT, `result ${shown(data)}`);
});

report();
