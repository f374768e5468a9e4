// Chat's whole answer through its own operation (`POST /v3/chat/completions/complete`, answering only
// `application/json`), with orval 8's axios client, as generated.
import axios from 'axios';
import { getScribeAPI } from './client/api.ts';
import { attempt, check, env, report, shown } from './harness.mts';

axios.defaults.baseURL = env.baseUrl;
axios.defaults.headers.common.Authorization = `Bearer ${env.apiKey}`;
const api = getScribeAPI();

await attempt('chat-json-operation', 'generated', async () => {
  const { data } = await api.createChatCompletionJson({
    model: 'service-mini',
    messages: [{ role: 'user', content: 'Hello' }],
    max_tokens: 8,
  });
  check(data.object === 'chat.completion' && typeof data.choices[0]?.message.content === 'string', shown(data));
});

report();
