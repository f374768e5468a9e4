// The chat stream through its own operation (`POST /v3/chat/completions/stream`, answering only
// `text/event-stream`), with orval 8's fetch client.
import { createStreamedChatCompletion } from './client/api.ts';
import { attempt, check, env, report, shown, sseData, textOf } from './harness.mts';

await attempt('chat-stream-operation', 'generated', async () => {
  const answer = await createStreamedChatCompletion(
    { model: 'service-mini', messages: [{ role: 'user', content: 'Hello' }], max_tokens: 8 },
    { headers: { Authorization: `Bearer ${env.apiKey}` } },
  );
  check(answer.status === 200, `${answer.status}: ${shown(answer.data)}`);
  check(sseData(textOf(answer.data)).length > 1, 'no chunks');
});

report();
