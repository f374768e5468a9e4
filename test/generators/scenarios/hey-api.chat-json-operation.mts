// Chat's whole answer through its own operation (`POST /v3/chat/completions/complete`, answering only
// `application/json`), with @hey-api/openapi-ts, as generated.
import { client } from './client/client.gen.ts';
import { createChatCompletionJson } from './client/sdk.gen.ts';
import { attempt, check, env, report, shown } from './harness.mts';

client.setConfig({ baseUrl: env.baseUrl, auth: () => env.apiKey });

await attempt('chat-json-operation', 'generated', async () => {
  const { data, error, response } = await createChatCompletionJson({
    body: { model: 'service-mini', messages: [{ role: 'user', content: 'Hello' }], max_tokens: 8 },
  });
  check(data, `${response?.status}: ${shown(error)}`);
  check(data.object === 'chat.completion' && typeof data.choices[0]?.message.content === 'string', shown(data));
});

report();
