// Chat's whole answer through its own operation (`POST /v3/chat/completions/complete`, answering only
// `application/json`), with openapi-fetch, as generated.
import createClient from 'openapi-fetch';
import type { paths } from './client/schema.js';
import { attempt, check, env, report, shown } from './harness.mts';

const client = createClient<paths>({ baseUrl: env.baseUrl, headers: { Authorization: `Bearer ${env.apiKey}` } });

await attempt('chat-json-operation', 'generated', async () => {
  const { data, error, response } = await client.POST('/v3/chat/completions/complete', {
    body: { model: 'service-mini', messages: [{ role: 'user', content: 'Hello' }], max_tokens: 8 },
  });
  check(data, `${response.status}: ${shown(error)}`);
  check(data.object === 'chat.completion' && typeof data.choices[0]?.message.content === 'string', shown(data));
});

report();
