// orval 8's axios client (the newest release; Node 22 or later to generate): `getScribeAPI()` returns one function per
// operation on axios's default instance, answering an AxiosResponse and throwing an AxiosError for an error status.
// Base URL and key are axios defaults; the v2 call is signed in an axios request interceptor with scribe-client's
// signV2Request. Its one documented option: `responseType: 'text'` in a call's AxiosRequestConfig.
import axios from 'axios';
import { getScribeAPI } from './client/api.ts';
import {
  attempt,
  check,
  checkPdf,
  checkSrt,
  checkText,
  checkVtt,
  env,
  EXPECTED_TEXT,
  LINK,
  MISSING_ID,
  recording,
  report,
  shown,
  signAxiosRequest,
  sseData,
  state,
  taskId,
  textOf,
  type IsLiteral,
  v2Link,
} from './harness.mts';

axios.defaults.baseURL = env.baseUrl;
axios.defaults.headers.common.Authorization = `Bearer ${env.apiKey}`;
const api = getScribeAPI();
/** An error naming the status and body of a call that threw (axios throws on an error status). */
const failure = (error: unknown, prefix = '') =>
  new Error(
    `${prefix}${axios.isAxiosError(error) ? `${error.response?.status}: ${shown(error.response?.data)}` : String(error)}`,
    { cause: error },
  );

await attempt('models', 'generated', async () => {
  const { data } = await api.listModels();
  check(
    data.data.some((model) => model.id === 'service-transcribe'),
    `no service-transcribe: ${shown(data)}`,
  );
});

await attempt('price', 'generated', async () => {
  const { data } = await api.calculatePrice({ type: 'transcription', duration_seconds: 90, priority: 'queue' });
  check(typeof data.amount === 'number' && data.amount > 0, `amount ${shown(data)}`);
});

await attempt('sync-upload', 'generated', async () => {
  try {
    const { data } = await api.createSyncTranscription({ file: recording(), language: 'en' });
    state.taskId = data.data.id;
  } catch (error) {
    throw failure(error);
  }
});

await attempt('poll', 'generated', async () => {
  for (let tries = 0; tries < 240; tries += 1) {
    const task = (await api.getTranscriptionStatus(taskId())).data.data;
    if (task.status === 'completed') {
      check(task.result?.text === EXPECTED_TEXT, `text ${shown(task.result?.text)}`);
      return;
    }
    check(task.status !== 'failed' && task.status !== 'cancelled', `task ended ${task.status}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error('not completed in 60 s');
});

await attempt('result-json', 'generated', async () => {
  const { data } = await api.getTranscriptionResult(taskId(), { format: 'json' });
  check(data.text === EXPECTED_TEXT, `result ${shown(data)}`);
});
await attempt('result-srt', 'generated', async () => {
  checkSrt((await api.getTranscriptionResult(taskId(), { format: 'srt' })).data);
});
await attempt('result-srt', 'option', async () => {
  checkSrt((await api.getTranscriptionResult(taskId(), { format: 'srt' }, { responseType: 'text' })).data);
});
await attempt('result-vtt', 'generated', async () => {
  checkVtt((await api.getTranscriptionResult(taskId(), { format: 'vtt' })).data);
});
await attempt('result-vtt', 'option', async () => {
  checkVtt((await api.getTranscriptionResult(taskId(), { format: 'vtt' }, { responseType: 'text' })).data);
});
await attempt('result-text', 'generated', async () => {
  checkText((await api.getTranscriptionResult(taskId(), { format: 'txt' })).data);
});
await attempt('result-text', 'option', async () => {
  checkText((await api.getTranscriptionResult(taskId(), { format: 'txt' }, { responseType: 'text' })).data);
});

await attempt('async-link', 'generated', async () => {
  try {
    const { data } = await api.createAsyncTranscription({ url: LINK, language: 'en' });
    check(typeof data.transcription_id === 'string', shown(data));
  } catch (error) {
    throw failure(error);
  }
});

await attempt('async-upload', 'generated', async () => {
  try {
    const { data } = await api.createAsyncTranscription({ file: recording(), language: 'en' });
    check(typeof data.transcription_id === 'string', shown(data));
  } catch (error) {
    throw failure(error);
  }
});

await attempt('not-found', 'generated', async () => {
  try {
    await api.getTranscriptionStatus(MISSING_ID);
  } catch (error) {
    if (axios.isAxiosError(error) && error.response?.status === 404) {
      const body = error.response.data;
      if (body.error.type === 'not_found_error') {
        const literal: IsLiteral<typeof body.error.type> = true;
        check(literal, 'not a literal');
        return;
      }
    }
    throw failure(error, 'not narrowed: ');
  }
  throw new Error('no error');
});

await attempt('chat', 'generated', async () => {
  try {
    const { data } = await api.createChatCompletion({
      model: 'service-mini',
      messages: [{ role: 'user', content: 'Hello' }],
      max_tokens: 8,
    });
    check(data.object === 'chat.completion' && typeof data.choices[0]?.message.content === 'string', shown(data));
  } catch (error) {
    throw failure(error);
  }
});

await attempt('chat-stream', 'generated', async () => {
  const { data } = await api.createChatCompletion({
    model: 'service-mini',
    messages: [{ role: 'user', content: 'Hello' }],
    max_tokens: 8,
    stream: true,
  });
  check(sseData(textOf(data)).length > 0, 'no chunks');
});
await attempt('chat-stream', 'option', async () => {
  const { data } = await api.createChatCompletion(
    { model: 'service-mini', messages: [{ role: 'user', content: 'Hello' }], max_tokens: 8, stream: true },
    { responseType: 'text' },
  );
  check(sseData(textOf(data)).length > 0, 'no chunks');
});

// The v2 result link's three files, through the one operation that answers three media types.
const v2Result = (format: 'text' | 'json' | 'pdf', responseType?: 'text' | 'arraybuffer') => {
  const { id, expires, signature } = v2Link(format);
  return api.downloadV2TranscriptionResult(id, format, { expires, signature }, responseType ? { responseType } : {});
};
await attempt('v2-result-text', 'generated', async () => checkText((await v2Result('text')).data));
await attempt('v2-result-text', 'option', async () => checkText((await v2Result('text', 'text')).data));
await attempt('v2-result-json', 'generated', async () => {
  const { data } = await v2Result('json');
  check(data.text === EXPECTED_TEXT, `result ${shown(data)}`);
});
await attempt('v2-result-pdf', 'generated', async () => checkPdf((await v2Result('pdf')).data));
await attempt('v2-result-pdf', 'option', async () => checkPdf((await v2Result('pdf', 'arraybuffer')).data));

await attempt('v2-signed', 'generated', async () => {
  const interceptor = axios.interceptors.request.use(signAxiosRequest);
  try {
    const { data } = await api.calculateV2TranscriptionCost({ priority: 'queue', duration: '1:30' });
    check(typeof data.cost === 'number', shown(data));
  } catch (error) {
    throw failure(error);
  } finally {
    axios.interceptors.request.eject(interceptor);
  }
});

report();
