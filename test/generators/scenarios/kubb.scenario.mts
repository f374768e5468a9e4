// kubb's plugin-client (its default axios client): one function per operation answering the body and throwing an
// AxiosError for an error status. Base URL and key are set with the client's setConfig; the v2 call is signed in a
// request interceptor of its axiosInstance with scribe-client's signV2Request. Its one documented option:
// `responseType: 'text'` in a call's RequestConfig.
import { axiosInstance, setConfig } from '@kubb/plugin-client/clients/axios';
import { isAxiosError } from 'axios';
import {
  calculatePrice,
  calculateV2TranscriptionCost,
  createAsyncTranscription,
  createChatCompletion,
  createSyncTranscription,
  getTranscriptionResult,
  getTranscriptionStatus,
  listModels,
  downloadV2TranscriptionResult,
} from './client/index.ts';
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

setConfig({ baseURL: env.baseUrl, headers: { Authorization: `Bearer ${env.apiKey}` } });
/** An error naming the status and body of a call that threw (axios throws on an error status). */
const failure = (error: unknown, prefix = '') =>
  new Error(
    `${prefix}${isAxiosError(error) ? `${error.response?.status}: ${shown(error.response?.data)}` : String(error)}`,
    { cause: error },
  );

await attempt('models', 'generated', async () => {
  const models = await listModels();
  check(
    models.data.some((model) => model.id === 'service-transcribe'),
    `no service-transcribe: ${shown(models)}`,
  );
});

await attempt('price', 'generated', async () => {
  const quote = await calculatePrice({ type: 'transcription', duration_seconds: 90, priority: 'queue' });
  check(typeof quote.amount === 'number' && quote.amount > 0, `amount ${shown(quote)}`);
});

await attempt('sync-upload', 'generated', async () => {
  try {
    state.taskId = (await createSyncTranscription({ file: recording(), language: 'en' })).data.id;
  } catch (error) {
    throw failure(error);
  }
});

await attempt('poll', 'generated', async () => {
  for (let tries = 0; tries < 240; tries += 1) {
    const task = (await getTranscriptionStatus(taskId())).data;
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
  const result = await getTranscriptionResult(taskId(), { format: 'json' });
  check(result.text === EXPECTED_TEXT, `result ${shown(result)}`);
});
await attempt('result-srt', 'generated', async () => {
  checkSrt(await getTranscriptionResult(taskId(), { format: 'srt' }));
});
await attempt('result-srt', 'option', async () => {
  checkSrt(await getTranscriptionResult(taskId(), { format: 'srt' }, { responseType: 'text' }));
});
await attempt('result-vtt', 'generated', async () => {
  checkVtt(await getTranscriptionResult(taskId(), { format: 'vtt' }));
});
await attempt('result-vtt', 'option', async () => {
  checkVtt(await getTranscriptionResult(taskId(), { format: 'vtt' }, { responseType: 'text' }));
});
await attempt('result-text', 'generated', async () => {
  checkText(await getTranscriptionResult(taskId(), { format: 'txt' }));
});
await attempt('result-text', 'option', async () => {
  checkText(await getTranscriptionResult(taskId(), { format: 'txt' }, { responseType: 'text' }));
});

await attempt('async-link', 'generated', async () => {
  try {
    const created = await createAsyncTranscription({ url: LINK, language: 'en' });
    check(typeof created.transcription_id === 'string', shown(created));
  } catch (error) {
    throw failure(error);
  }
});

await attempt('async-upload', 'generated', async () => {
  try {
    const created = await createAsyncTranscription({ file: recording(), language: 'en' });
    check(typeof created.transcription_id === 'string', shown(created));
  } catch (error) {
    throw failure(error);
  }
});

await attempt('not-found', 'generated', async () => {
  try {
    await getTranscriptionStatus(MISSING_ID);
  } catch (error) {
    if (isAxiosError(error) && error.response?.status === 404) {
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
    const answer = await createChatCompletion({
      model: 'service-mini',
      messages: [{ role: 'user', content: 'Hello' }],
      max_tokens: 8,
    });
    check(answer.object === 'chat.completion' && typeof answer.choices[0]?.message.content === 'string', shown(answer));
  } catch (error) {
    throw failure(error);
  }
});

await attempt('chat-stream', 'generated', async () => {
  const answer = await createChatCompletion({
    model: 'service-mini',
    messages: [{ role: 'user', content: 'Hello' }],
    max_tokens: 8,
    stream: true,
  });
  check(sseData(textOf(answer)).length > 0, 'no chunks');
});
await attempt('chat-stream', 'option', async () => {
  const answer = await createChatCompletion(
    { model: 'service-mini', messages: [{ role: 'user', content: 'Hello' }], max_tokens: 8, stream: true },
    undefined,
    { responseType: 'text' },
  );
  check(sseData(textOf(answer)).length > 0, 'no chunks');
});

// The v2 result link's three files, through the one operation that answers three media types.
const v2Result = (format: 'text' | 'json' | 'pdf', responseType?: 'text' | 'arraybuffer') => {
  const { id, expires, signature } = v2Link(format);
  return downloadV2TranscriptionResult(id, format, { expires, signature }, responseType ? { responseType } : {});
};
await attempt('v2-result-text', 'generated', async () => checkText(await v2Result('text')));
await attempt('v2-result-text', 'option', async () => checkText(await v2Result('text', 'text')));
await attempt('v2-result-json', 'generated', async () => {
  const result = await v2Result('json');
  check(result.text === EXPECTED_TEXT, `result ${shown(result)}`);
});
await attempt('v2-result-pdf', 'generated', async () => checkPdf(await v2Result('pdf')));
await attempt('v2-result-pdf', 'option', async () => checkPdf(await v2Result('pdf', 'arraybuffer')));

await attempt('v2-signed', 'generated', async () => {
  const interceptor = axiosInstance.interceptors.request.use(signAxiosRequest);
  try {
    const cost = await calculateV2TranscriptionCost({ priority: 'queue', duration: '1:30' });
    check(typeof cost.cost === 'number', shown(cost));
  } catch (error) {
    throw failure(error);
  } finally {
    axiosInstance.interceptors.request.eject(interceptor);
  }
});

report();
