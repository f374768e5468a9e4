// The chat stream through its own operation (`POST /v3/chat/completions/stream`, answering only
// `text/event-stream`), with openapi-fetch: as generated, then with `parseAs: 'stream'`.
import createClient from 'openapi-fetch';
import type { paths } from './client/schema.js';
import { attempt, check, env, report, shown, sseData, streamText, textOf } from './harness.mts';

const client = createClient<paths>({ baseUrl: env.baseUrl, headers: { Authorization: `Bearer ${env.apiKey}` } });
const body = { model: 'service-mini' as const, messages: [{ role: 'user' as const, content: 'Hello' }], max_tokens: 8 };

await attempt('chat-stream-operation', 'generated', async () => {
  const { data, error, response } = await client.POST('/v3/chat/completions/stream', { body });
  check(data, `${response.status}: ${shown(error)}`);
  check(sseData(textOf(data)).length > 1, 'no chunks');
});
await attempt('chat-stream-operation', 'option', async () => {
  const { response } = await client.POST('/v3/chat/completions/stream', { body, parseAs: 'stream' });
  check(response.ok, `status ${response.status}`);
  check(sseData(await streamText(response.body)).length > 1, 'no chunks');
});

report();
