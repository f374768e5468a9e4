// orval 8's fetch client (the newest release; Node 22 or later to generate): one function per operation answering
// `{ data, status, headers }` typed per status. The base URL is generated in (orval's `baseUrl` setting); the key goes
// in each call's `RequestInit`, the only per-call setting it offers, and its one documented option is a `Content-Type`
// header there. It has no parse mode and no request hook, so the v2 call carries headers signed by scribe-client's
// signV2Request for that request.
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
} from './client/api.ts';
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
  taskId,
  textOf,
  type IsLiteral,
  v2Link,
} from './harness.mts';

const auth: RequestInit = { headers: { Authorization: `Bearer ${env.apiKey}` } };

await attempt('models', 'generated', async () => {
  const answer = await listModels(auth);
  check(answer.status === 200, `${answer.status}: ${shown(answer.data)}`);
  check(
    answer.data.data.some((model) => model.id === 'service-transcribe'),
    `no service-transcribe: ${shown(answer.data)}`,
  );
});

await attempt('price', 'generated', async () => {
  const answer = await calculatePrice({ type: 'transcription', duration_seconds: 90, priority: 'queue' }, auth);
  check(answer.status === 200, `${answer.status}: ${shown(answer.data)}`);
  check(typeof answer.data.amount === 'number' && answer.data.amount > 0, `amount ${shown(answer.data)}`);
});

await attempt('sync-upload', 'generated', async () => {
  const answer = await createSyncTranscription({ file: recording(), language: 'en' }, auth);
  check(answer.status === 200, `${answer.status}: ${shown(answer.data)}`);
  state.taskId = answer.data.data.id;
});

await attempt('poll', 'generated', async () => {
  for (let tries = 0; tries < 240; tries += 1) {
    const answer = await getTranscriptionStatus(taskId(), auth);
    check(answer.status === 200, `${answer.status}: ${shown(answer.data)}`);
    const task = answer.data.data;
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
  const answer = await getTranscriptionResult(taskId(), { format: 'json' }, auth);
  check(answer.status === 200, `${answer.status}: ${shown(answer.data)}`);
  check(answer.data.text === EXPECTED_TEXT, `result ${shown(answer.data)}`);
});
await attempt('result-srt', 'generated', async () => {
  checkSrt((await getTranscriptionResult(taskId(), { format: 'srt' }, auth)).data);
});
await attempt('result-vtt', 'generated', async () => {
  checkVtt((await getTranscriptionResult(taskId(), { format: 'vtt' }, auth)).data);
});
await attempt('result-text', 'generated', async () => {
  checkText((await getTranscriptionResult(taskId(), { format: 'txt' }, auth)).data);
});

await attempt('async-link', 'generated', async () => {
  const answer = await createAsyncTranscription({ url: LINK, language: 'en' }, auth);
  check(answer.status === 202, `${answer.status}: ${shown(answer.data)}`);
  check(typeof answer.data.transcription_id === 'string', shown(answer.data));
});

await attempt('async-link', 'option', async () => {
  // The generated call sends JSON without a Content-Type (fetch then says text/plain); the call's headers add it.
  const answer = await createAsyncTranscription(
    { url: LINK, language: 'en' },
    { headers: { Authorization: `Bearer ${env.apiKey}`, 'Content-Type': 'application/json' } },
  );
  check(answer.status === 202, `${answer.status}: ${shown(answer.data)}`);
  check(typeof answer.data.transcription_id === 'string', shown(answer.data));
});

await attempt('async-upload', 'generated', async () => {
  const answer = await createAsyncTranscription({ file: recording(), language: 'en' }, auth);
  check(answer.status === 202, `${answer.status}: ${shown(answer.data)}`);
  check(typeof answer.data.transcription_id === 'string', shown(answer.data));
});

await attempt('not-found', 'generated', async () => {
  const answer = await getTranscriptionStatus(MISSING_ID, auth);
  if (answer.status === 404 && answer.data.error.type === 'not_found_error') {
    const literal: IsLiteral<typeof answer.data.error.type> = true;
    check(literal, 'not a literal');
    return;
  }
  throw new Error(`not narrowed: ${answer.status} ${shown(answer.data)}`);
});

await attempt('chat', 'generated', async () => {
  const answer = await createChatCompletion(
    { model: 'service-mini', messages: [{ role: 'user', content: 'Hello' }], max_tokens: 8 },
    auth,
  );
  check(answer.status === 200, `${answer.status}: ${shown(answer.data)}`);
  check(
    answer.data.object === 'chat.completion' && typeof answer.data.choices[0]?.message.content === 'string',
    shown(answer.data),
  );
});

await attempt('chat-stream', 'generated', async () => {
  const answer = await createChatCompletion(
    { model: 'service-mini', messages: [{ role: 'user', content: 'Hello' }], max_tokens: 8, stream: true },
    auth,
  );
  check(answer.status === 200, `${answer.status}: ${shown(answer.data)}`);
  check(sseData(textOf(answer.data)).length > 0, 'no chunks');
});

// The v2 result link's three files, through the one operation that answers three media types.
const v2Result = (format: 'text' | 'json' | 'pdf') => {
  const { id, expires, signature } = v2Link(format);
  return downloadV2TranscriptionResult(id, format, { expires, signature });
};
await attempt('v2-result-text', 'generated', async () => checkText((await v2Result('text')).data));
await attempt('v2-result-json', 'generated', async () => {
  const answer = await v2Result('json');
  check(answer.status === 200, `${answer.status}: ${shown(answer.data)}`);
  check(answer.data.text === EXPECTED_TEXT, `result ${shown(answer.data)}`);
});
await attempt('v2-result-pdf', 'generated', async () => checkPdf((await v2Result('pdf')).data));

await attempt('v2-signed', 'generated', async () => {
  // No hook: the headers are made for a request like the one the function will send (version 1 covers no body).
  const signed = await signV2Request(new Request(`${env.baseUrl}/v2/transcriptions/calculate`, { method: 'POST' }), {
    publicKey: env.publicKey,
    secret: env.secret,
  });
  // A plain object: the generated call spreads `options.headers`, which drops the entries of a Headers instance.
  const headers = Object.fromEntries(signed.headers);
  const answer = await calculateV2TranscriptionCost({ priority: 'queue', duration: '1:30' }, { headers });
  check(answer.status === 200, `${answer.status}: ${shown(answer.data)}`);
  check(typeof answer.data.cost === 'number', shown(answer.data));
});

report();
