// The chat stream through its own operation (`POST /v3/chat/completions/stream`, answering only
// `text/event-stream`), with kubb's client: as generated, then with `responseType: 'text'`.
import { setConfig } from '@kubb/plugin-client/clients/axios';
import { createStreamedChatCompletion } from './client/index.ts';
import { attempt, check, env, report, sseData, textOf } from './harness.mts';

setConfig({ baseURL: env.baseUrl, headers: { Authorization: `Bearer ${env.apiKey}` } });

await attempt('chat-stream-operation', 'generated', async () => {
  const answer = await createStreamedChatCompletion({
    model: 'service-mini',
    messages: [{ role: 'user', content: 'Hello' }],
    max_tokens: 8,
  });
  check(sseData(textOf(answer)).length > 1, 'no chunks');
});
await attempt('chat-stream-operation', 'option', async () => {
  const answer = await createStreamedChatCompletion(
    { model: 'service-mini', messages: [{ role: 'user', content: 'Hello' }], max_tokens: 8 },
    undefined,
    { responseType: 'text' },
  );
  check(sseData(textOf(answer)).length > 1, 'no chunks');
});

report();
