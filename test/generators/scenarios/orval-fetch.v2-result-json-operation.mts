// The v2 result link's JSON file through its own operation (`GET /v2/results/{id}.json`, answering only
// `application/json`), called with the link's id, `expires` and `signature`, with orval's fetch client: as generated.
import { downloadV2TranscriptionJson } from './client/api.ts';
import { attempt, check, EXPECTED_TEXT, report, shown, v2Link } from './harness.mts';

const { id, expires, signature } = v2Link('json');

await attempt('v2-result-json-operation', 'generated', async () => {
  const answer = await downloadV2TranscriptionJson(id, { expires, signature });
  check(answer.status === 200, `${answer.status}: ${shown(answer.data)}`);
  check(answer.data.text === EXPECTED_TEXT, `result ${shown(answer.data)}`);
});

report();
