// The v2 result link's JSON file through its own operation (`GET /v2/results/{id}.json`, answering only
// `application/json`), called with the link's id, `expires` and `signature`, with kubb's client: as generated.
import { setConfig } from '@kubb/plugin-client/clients/axios';
import { downloadV2TranscriptionJson } from './client/index.ts';
import { attempt, check, env, EXPECTED_TEXT, report, shown, v2Link } from './harness.mts';

setConfig({ baseURL: env.baseUrl });
const { id, expires, signature } = v2Link('json');

await attempt('v2-result-json-operation', 'generated', async () => {
  const result = await downloadV2TranscriptionJson(id, { expires, signature });
  check(result.text === EXPECTED_TEXT, `result ${shown(result)}`);
});

report();
