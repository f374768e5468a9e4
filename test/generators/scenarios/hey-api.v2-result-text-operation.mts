// The v2 result link's text file through its own operation (`GET /v2/results/{id}.txt`, answering only `text/plain`),
// called with the link's id, `expires` and `signature`, with @hey-api/openapi-ts: as generated, then with `parseAs:
// 'text'`.
import { client } from './client/client.gen.ts';
import { downloadV2TranscriptionText } from './client/sdk.gen.ts';
import { attempt, checkText, env, report, v2Link } from './harness.mts';

client.setConfig({ baseUrl: env.baseUrl });
const { id, expires, signature } = v2Link('text');

await attempt('v2-result-text-operation', 'generated', async () => {
  checkText((await downloadV2TranscriptionText({ path: { id }, query: { expires, signature } })).data);
});
await attempt('v2-result-text-operation', 'option', async () => {
  checkText((await downloadV2TranscriptionText({ path: { id }, query: { expires, signature }, parseAs: 'text' })).data);
});

report();
