// The llama engine on its worker thread against the same engine in this thread, on the tiny GGUF: the same request
// gives the same answer and counts (greedy decoding), also when measured and started in one step, the answer's text
// arrives in pieces that add up to it, paced as the request asks, and what
// the worker refuses or stops crosses the thread as a ChatEngineError with its code, tokens and `started` (busy,
// abandoned, closed).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { loadChatConfig } from '../config.ts';
import { tinyModelPath } from '../tiny-model-fixture.ts';
import { ChatEngineError, type GenerateRequest, type LocalChatEngine } from './engine.ts';
import { createLlamaEngine } from './llama-engine.ts';
import { createLlamaWorkerEngine, type LlamaWorkerEngine } from './llama-worker-engine.ts';
import { rejectionOf } from '../../test-support/rejection.ts';

const test = suite('llama engine on a worker thread');
let inThread: LocalChatEngine;
let onWorker: LlamaWorkerEngine;

const messages = [{ role: 'user' as const, content: 'Summarise the release meeting in two sentences.' }];
const request = (overrides: Partial<GenerateRequest> = {}): GenerateRequest => ({
  messages,
  temperature: 0,
  maxTokens: 120,
  format: { type: 'text' },
  signal: new AbortController().signal,
  onDelta: () => undefined,
  ...overrides,
});

test.before(async () => {
  // One slot and no queue, so a second call at once is refused as busy.
  const options = { ...loadChatConfig({}), parallel: 1, maxWaiting: 0, modelPath: await tinyModelPath() };
  inThread = await createLlamaEngine(options);
  onWorker = await createLlamaWorkerEngine(options);
});
test.after(async () => {
  await inThread?.close();
  await onWorker?.close();
});

test('the same request gives the same answer, counts and context window as the engine in this thread', async () => {
  assert.is(onWorker.contextWindow, inThread.contextWindow);
  assert.equal(await onWorker.measure(messages), await inThread.measure(messages));
  const pieces: string[] = [];
  const expected = await inThread.generate(request());
  const actual = await onWorker.generate(request({ onDelta: (text) => pieces.push(text) }));
  assert.equal(actual, expected);
  assert.ok(expected.completionTokens > 10, `${expected.completionTokens} tokens`);
  // Without an interval each piece comes as the model makes it: about a piece per token.
  assert.ok(pieces.length > expected.completionTokens / 2, `${pieces.length} pieces`);
  assert.is(pieces.join(''), actual.content);
});

test('the text comes as the request paces it, and an answer nobody streams sends no text across', async () => {
  const worker = await onWorker.workerThread();
  let deltaMessages = 0;
  const count = (message: { type: string }) => void (message.type === 'delta' && deltaMessages++);
  worker.on('message', count);
  try {
    const pieces: { at: number; text: string }[] = [];
    const paced = await onWorker.generate(
      request({ maxTokens: 400, deltaIntervalMs: 10, onDelta: (text) => pieces.push({ at: performance.now(), text }) }),
    );
    assert.is(pieces.map((p) => p.text).join(''), paced.content);
    assert.is(deltaMessages, pieces.length, 'one message per piece');
    // At most a piece per 10 ms (the first at once, the held rest when the model stops), timed here as each arrives.
    const span = pieces.at(-1)!.at - pieces[0]!.at;
    assert.ok(pieces.length > 1 && pieces.length <= 2 + span / 10, `${pieces.length} pieces in ${span.toFixed(1)} ms`);
    assert.ok(paced.completionTokens > 3 * pieces.length, `${paced.completionTokens} tokens`);

    deltaMessages = 0;
    assert.equal(await onWorker.generate(request({ maxTokens: 400, onDelta: undefined })), paced);
    assert.is(deltaMessages, 0);
  } finally {
    worker.off('message', count);
  }
});

test('start: the measure of `measure` and the answer of `generate`, clamped to the room the prompt leaves', async () => {
  const pieces: string[] = [];
  const started = await onWorker.start(request({ onDelta: (text) => pieces.push(text) }));
  assert.equal(started.measure, await inThread.measure(messages));
  const answer = await started.answer;
  assert.equal(answer, await inThread.generate(request()));
  assert.is(pieces.join(''), answer!.content);
  // A bound above the room left is clamped to it (unclamped, node-llama-cpp fails once the context is full: it cannot
  // shift out a prompt this long).
  const long = [{ role: 'user' as const, content: 'word '.repeat(320) }];
  const near = await onWorker.start(request({ messages: long, maxTokens: 5000 }));
  assert.ok(near.measure.maxAnswerTokens > 0 && near.measure.maxAnswerTokens < 200, `${near.measure.maxAnswerTokens}`);
  const filled = await near.answer!;
  assert.equal(filled, await inThread.generate(request({ messages: long, maxTokens: near.measure.maxAnswerTokens })));
  assert.is(filled.finishReason, 'length');
});

test('start: a prompt that leaves no room starts nothing, and the slot stays free', async () => {
  const tooLong = [{ role: 'user' as const, content: 'word '.repeat(5000) }];
  const started = await onWorker.start(request({ messages: tooLong }));
  assert.is(started.answer, undefined);
  assert.is(started.measure.maxAnswerTokens, 0);
  assert.equal(started.measure, await inThread.measure(tooLong));
  // One slot and no queue: a slot held by the refused start would make this busy.
  const next = await onWorker.start(request({ maxTokens: 5 }));
  assert.is((await next.answer!).completionTokens, 5);
});

test('start: a schema that makes no grammar fails the start itself as invalid_answer, nothing started', async () => {
  const failed = await rejectionOf(
    // node-llama-cpp maps a `oneOf` over its items; one that is not a list cannot become a grammar.
    onWorker.start(request({ format: { type: 'json_schema', schema: { oneOf: 3 } } })),
    ChatEngineError,
  );
  assert.equal([failed.code, failed.started], ['invalid_answer', false]);
});

test('a second call while the only slot is busy is refused as engine_unavailable, nothing started', async () => {
  const first = onWorker.generate(request({ maxTokens: 200 }));
  const busy = await rejectionOf(onWorker.generate(request()), ChatEngineError);
  assert.is(busy.code, 'engine_unavailable');
  assert.is(busy.started, false);
  assert.ok((await first).completionTokens > 0);
});

test('an abandoned generation stops with the tokens made so far, and the slot serves the next call', async () => {
  const controller = new AbortController();
  let piecesSeen = 0;
  const abandoned = onWorker.generate(
    request({
      maxTokens: 2000,
      signal: controller.signal,
      onDelta: () => {
        if (++piecesSeen === 1) controller.abort();
      },
    }),
  );
  const stopped = await rejectionOf(abandoned, ChatEngineError);
  assert.is(stopped.code, 'cancelled');
  assert.ok(stopped.tokens >= 1 && stopped.tokens < 2000, `${stopped.tokens} tokens`);
  const next = await onWorker.generate(request({ maxTokens: 5 }));
  assert.is(next.completionTokens, 5);
});

test('a worker that stopped is replaced by the next call', async () => {
  // Stopped while idle: terminating a worker inside one of node-llama-cpp's native calls aborts the whole process
  // (seen here: "terminate called after throwing an instance of 'Napi::Error'"), so a crash mid-answer is not
  // something a test can cause without taking the test down with it.
  const stopped = await onWorker.workerThread();
  await stopped.terminate();
  const next = await onWorker.generate(request({ maxTokens: 5 }));
  assert.is(next.completionTokens, 5);
  assert.is.not(await onWorker.workerThread(), stopped);
});

test('a call already abandoned is refused before the worker is asked', async () => {
  const controller = new AbortController();
  controller.abort();
  const refused = await rejectionOf(onWorker.generate(request({ signal: controller.signal })), ChatEngineError);
  assert.is(refused.code, 'cancelled');
  assert.is(refused.started, false);
});

test('a GGUF that does not load fails the start with llama.cpp’s reason', async () => {
  const failed = await rejectionOf(
    createLlamaWorkerEngine({ ...loadChatConfig({}), modelPath: '/nonexistent/model.gguf' }),
    Error,
  );
  assert.match(failed.message, /nonexistent|not.*found|no such file|failed/i);
});

test('a closed engine refuses calls as engine_unavailable', async () => {
  const options = { ...loadChatConfig({}), modelPath: await tinyModelPath() };
  const engine = await createLlamaWorkerEngine(options);
  await engine.close();
  const refused = await rejectionOf(engine.generate(request()), ChatEngineError);
  assert.is(refused.code, 'engine_unavailable');
});

test.run();
