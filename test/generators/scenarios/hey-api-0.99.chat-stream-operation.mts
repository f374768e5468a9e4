// The chat stream through its own operation (`POST /v3/chat/completions/stream`, answering only
// `text/event-stream`), with @hey-api/openapi-ts 0.99: the SDK makes it a server-sent-events call whose `stream` yields
// each event's payload.
import { client } from './client/client.gen.ts';
import { createStreamedChatCompletion } from './client/sdk.gen.ts';
import { attempt, check, env, report, shown } from './harness.mts';

client.setConfig({ baseUrl: env.baseUrl, auth: () => env.apiKey });

await attempt('chat-stream-operation', 'generated', async () => {
  const { stream } = await createStreamedChatCompletion({
    body: { model: 'service-mini', messages: [{ role: 'user', content: 'Hello' }], max_tokens: 8 },
  });
  const events: unknown[] = [];
  let text = '';
  for await (const event of stream) {
    events.push(event);
    if (typeof event === 'object' && 'choices' in event) text += event.choices[0]?.delta.content ?? '';
  }
  check(events.length > 2, `events ${shown(events)}`);
  check(events.at(-1) === '[DONE]', `last event ${shown(events.at(-1))}`);
  check(typeof text === 'string', 'no text');
});

report();
