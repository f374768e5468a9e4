// The v2 result link's text file through its own operation (`GET /v2/results/{id}.txt`, answering only `text/plain`),
// called with the link's id, `expires` and `signature`, with kubb's client: as generated, then with `responseType:
// 'text'`.
import { setConfig } from '@kubb/plugin-client/clients/axios';
import { downloadV2TranscriptionText } from './client/index.ts';
import { attempt, checkText, env, report, v2Link } from './harness.mts';

setConfig({ baseURL: env.baseUrl });
const { id, expires, signature } = v2Link('text');

await attempt('v2-result-text-operation', 'generated', async () => {
  checkText(await downloadV2TranscriptionText(id, { expires, signature }));
});
await attempt('v2-result-text-operation', 'option', async () => {
  checkText(await downloadV2TranscriptionText(id, { expires, signature }, { responseType: 'text' }));
});

report();
