// The v2 result link's text file through its own operation (`GET /v2/results/{id}.txt`, answering only `text/plain`),
// called with the link's id, `expires` and `signature`, with orval's fetch client: as generated.
import { downloadV2TranscriptionText } from './client/api.ts';
import { attempt, checkText, report, v2Link } from './harness.mts';

const { id, expires, signature } = v2Link('text');

await attempt('v2-result-text-operation', 'generated', async () => {
  checkText((await downloadV2TranscriptionText(id, { expires, signature })).data);
});

report();
