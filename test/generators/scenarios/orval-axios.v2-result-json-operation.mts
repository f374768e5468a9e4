// The v2 result link's JSON file through its own operation (`GET /v2/results/{id}.json`, answering only
// `application/json`), called with the link's id, `expires` and `signature`, with orval's axios client: as generated.
import axios from 'axios';
import { getScribeAPI } from './client/api.ts';
import { attempt, check, env, EXPECTED_TEXT, report, shown, v2Link } from './harness.mts';

// No credentials: the link's query is the credential.
axios.defaults.baseURL = env.baseUrl;
const api = getScribeAPI();
const { id, expires, signature } = v2Link('json');

await attempt('v2-result-json-operation', 'generated', async () => {
  const { data } = await api.downloadV2TranscriptionJson(id, { expires, signature });
  check(data.text === EXPECTED_TEXT, `result ${shown(data)}`);
});

report();
