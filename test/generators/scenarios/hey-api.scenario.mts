// @hey-api/openapi-ts's fetch client (the generator of this project's own client/; the matrix runs this file with
// 0.95 and 0.99): SDK functions answering `{ data, error, response }`, typed per status, `response` possibly undefined
// in 0.99 (an error may come before there is one). Base URL and key are set on the generated client; the v2 call goes
// through a second client whose request interceptor is scribe-client's signV2Request. Its one documented option:
// `parseAs` (`'text'` for the subtitle and text results, `'stream'` for the chat stream).
import { createClient, createConfig } from './client/client/index.ts';
import { client } from './client/client.gen.ts';
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
} from './client/sdk.gen.ts';
import { signV2Request } from './scribe-client/sign-v2-request.ts';
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
  sseData,
  state,
  streamText,
  taskId,
  textOf,
  type IsLiteral,
  v2Link,
} from './harness.mts';

client.setConfig({ baseUrl: env.baseUrl, auth: () => env.apiKey });

await attempt('models', 'generated', async () => {
  const { data, error } = await listModels();
  check(data, `no list: ${shown(error)}`);
  check(
    data.data.some((model) => model.id === 'service-transcribe'),
    `no service-transcribe: ${shown(data)}`,
  );
});

await attempt('price', 'generated', async () => {
  const { data, error } = await calculatePrice({
    body: { type: 'transcription', duration_seconds: 90, priority: 'queue' },
  });
  check(data, `no price: ${shown(error)}`);
  check(typeof data.amount === 'number' && data.amount > 0, `amount ${shown(data)}`);
});

await attempt('sync-upload', 'generated', async () => {
  const { data, error } = await createSyncTranscription({ body: { file: recording(), language: 'en' } });
  check(data, `not created: ${shown(error)}`);
  state.taskId = data.data.id;
});

await attempt('poll', 'generated', async () => {
  for (let tries = 0; tries < 240; tries += 1) {
    const { data, error } = await getTranscriptionStatus({ path: { id: taskId() } });
    check(data, `no status: ${shown(error)}`);
    const task = data.data;
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
  const { data, error } = await getTranscriptionResult({ path: { id: taskId() }, query: { format: 'json' } });
  check(data, `no result: ${shown(error)}`);
  check(data.text === EXPECTED_TEXT, `result ${shown(data)}`);
});
await attempt('result-srt', 'generated', async () => {
  checkSrt((await getTranscriptionResult({ path: { id: taskId() }, query: { format: 'srt' } })).data);
});
await attempt('result-srt', 'option', async () => {
  checkSrt((await getTranscriptionResult({ path: { id: taskId() }, query: { format: 'srt' }, parseAs: 'text' })).data);
});
await attempt('result-vtt', 'generated', async () => {
  checkVtt((await getTranscriptionResult({ path: { id: taskId() }, query: { format: 'vtt' } })).data);
});
await attempt('result-vtt', 'option', async () => {
  checkVtt((await getTranscriptionResult({ path: { id: taskId() }, query: { format: 'vtt' }, parseAs: 'text' })).data);
});
await attempt('result-text', 'generated', async () => {
  checkText((await getTranscriptionResult({ path: { id: taskId() }, query: { format: 'txt' } })).data);
});
await attempt('result-text', 'option', async () => {
  checkText((await getTranscriptionResult({ path: { id: taskId() }, query: { format: 'txt' }, parseAs: 'text' })).data);
});

await attempt('async-link', 'generated', async () => {
  const { data, error, response } = await createAsyncTranscription({ body: { url: LINK, language: 'en' } });
  check(data, `${response?.status}: ${shown(error)}`);
  check(typeof data.transcription_id === 'string', shown(data));
});

await attempt('async-upload', 'generated', async () => {
  const { data, error, response } = await createAsyncTranscription({ body: { file: recording(), language: 'en' } });
  check(data, `${response?.status}: ${shown(error)}`);
  check(typeof data.transcription_id === 'string', shown(data));
});

await attempt('not-found', 'generated', async () => {
  const { error, response } = await getTranscriptionStatus({ path: { id: MISSING_ID } });
  check(error && response?.status === 404, `status ${response?.status}`);
  if ('error' in error && error.error.type === 'not_found_error') {
    const literal: IsLiteral<typeof error.error.type> = true;
    check(literal, 'not a literal');
    return;
  }
  throw new Error(`not narrowed: ${shown(error)}`);
});

await attempt('chat', 'generated', async () => {
  const { data, error, response } = await createChatCompletion({
    body: { model: 'service-mini', messages: [{ role: 'user', content: 'Hello' }], max_tokens: 8 },
  });
  check(data, `${response?.status}: ${shown(error)}`);
  check(data.object === 'chat.completion' && typeof data.choices[0]?.message.content === 'string', shown(data));
});

await attempt('chat-stream', 'generated', async () => {
  const { data, error, response } = await createChatCompletion({
    body: { model: 'service-mini', messages: [{ role: 'user', content: 'Hello' }], max_tokens: 8, stream: true },
  });
  check(data, `${response?.status}: ${shown(error)}`);
  check(sseData(textOf(data)).length > 0, 'no chunks');
});
await attempt('chat-stream', 'option', async () => {
  const { error, response } = await createChatCompletion({
    body: { model: 'service-mini', messages: [{ role: 'user', content: 'Hello' }], max_tokens: 8, stream: true },
    parseAs: 'stream',
  });
  check(!error, `${response?.status}: ${shown(error)}`);
  check(sseData(await streamText(response?.body)).length > 1, 'no chunks');
});

// The v2 result link's three files, through the one operation that answers three media types.
const v2Result = (format: 'text' | 'json' | 'pdf', parseAs?: 'text' | 'blob') => {
  const { id, expires, signature } = v2Link(format);
  return downloadV2TranscriptionResult({
    path: { id, format },
    query: { expires, signature },
    ...(parseAs ? { parseAs } : {}),
  });
};
await attempt('v2-result-text', 'generated', async () => checkText((await v2Result('text')).data));
await attempt('v2-result-text', 'option', async () => checkText((await v2Result('text', 'text')).data));
await attempt('v2-result-json', 'generated', async () => {
  const { data, error, response } = await v2Result('json');
  check(data, `${response?.status}: ${shown(error)}`);
  check(data.text === EXPECTED_TEXT, `result ${shown(data)}`);
});
await attempt('v2-result-pdf', 'generated', async () => checkPdf((await v2Result('pdf')).data));
await attempt('v2-result-pdf', 'option', async () => checkPdf((await v2Result('pdf', 'blob')).data));

await attempt('v2-signed', 'generated', async () => {
  const v2 = createClient(createConfig({ baseUrl: env.baseUrl }));
  v2.interceptors.request.use((request) =>
    signV2Request(request, { publicKey: env.publicKey, secret: env.secret, version: 2 }),
  );
  const { data, error, response } = await calculateV2TranscriptionCost({
    client: v2,
    body: { priority: 'queue', duration: '1:30' },
  });
  check(data, `${response?.status}: ${shown(error)}`);
  check(typeof data.cost === 'number', shown(data));
});

report();
