// The chat stream through its own operation (`POST /v3/chat/completions/stream`, answering only
// `text/event-stream`), with orval 8's axios client: as generated, then with `responseType: 'text'`.
import axios from 'axios';
import { getScribeAPI } from './client/api.ts';
import { attempt, check, env, report, sseData, textOf } from './harness.mts';

axios.defaults.baseURL = env.baseUrl;
axios.defaults.headers.common.Authorization = `Bearer ${env.apiKey}`;
const api = getScribeAPI();

await attempt('chat-stream-operation', 'generated', async () => {
  const { data } = await api.createStreamedChatCompletion({
    model: 'service-mini',
    messages: [{ role: 'user', content: 'Hello' }],
    max_tokens: 8,
  });
  check(sseData(textOf(data)).length > 1, 'no chunks');
});
await attempt('chat-stream-operation', 'option', async () => {
  const { data } = await api.createStreamedChatCompletion(
    { model: 'service-mini', messages: [{ role: 'user', content: 'Hello' }], max_tokens: 8 },
    { responseType: 'text' },
  );
  check(sseData(textOf(data)).length > 1, 'no chunks');
});

report();
