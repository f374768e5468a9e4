// Chat's whole answer through its own operation (`POST /v3/chat/completions/complete`, answering only
// `application/json`), with orval 8's fetch client, as generated.
import { createChatCompletionJson } from './client/api.ts';
import { attempt, check, env, report, shown } from './harness.mts';

const auth: RequestInit = { headers: { Authorization: `Bearer ${env.apiKey}` } };

await attempt('chat-json-operation', 'generated', async () => {
  const answer = await createChatCompletionJson(
    { model: 'service-mini', messages: [{ role: 'user', content: 'Hello' }], max_tokens: 8 },
    auth,
  );
  check(answer.status === 200, `${answer.status}: ${shown(answer.data)}`);
  check(
    answer.data.object === 'chat.completion' && typeof answer.data.choices[0]?.message.content === 'string',
    shown(answer.data),
  );
});

report();
