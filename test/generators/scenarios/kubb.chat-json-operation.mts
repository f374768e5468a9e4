// Chat's whole answer through its own operation (`POST /v3/chat/completions/complete`, answering only
// `application/json`), with kubb's client, as generated.
import { setConfig } from '@kubb/plugin-client/clients/axios';
import { createChatCompletionJson } from './client/index.ts';
import { attempt, check, env, report, shown } from './harness.mts';

setConfig({ baseURL: env.baseUrl, headers: { Authorization: `Bearer ${env.apiKey}` } });

await attempt('chat-json-operation', 'generated', async () => {
  const answer = await createChatCompletionJson({
    model: 'service-mini',
    messages: [{ role: 'user', content: 'Hello' }],
    max_tokens: 8,
  });
  check(answer.object === 'chat.completion' && typeof answer.choices[0]?.message.content === 'string', shown(answer));
});

report();
