// The official `openai` npm package against a running server (real HTTP, `baseURL = <server>/v3`, a v3 Bearer key),
// on SQLite and PostgreSQL: embeddings.create with the SDK's default (it asks for base64 and decodes it) and with
// `encoding_format: 'float'` give the same vectors, `dimensions` works, usage is reported, and the server's errors
// reach the SDK as its typed errors with status, code and param. The SDK's requests go through a fetch that checks
// every answer against the contract, like the harness does.
import OpenAI from 'openai';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { checkResponse } from '../test-support/contract-check.ts';
import { databaseKinds, useHarness } from '../test-support/harness.ts';

/** fetch that checks each answer against the contract before the SDK reads it. */
const checkedFetch: typeof fetch = async (input, init) => {
  const response = await fetch(input, init);
  const text = await response.clone().text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
  checkResponse(
    { method: init?.method ?? 'GET', path: url.pathname },
    { status: response.status, headers: response.headers, text, body },
  );
  return response;
};

for (const kind of databaseKinds) {
  const test = suite(`openai SDK: embeddings (${kind})`);
  const harness = useHarness(test, kind, {
    // 1 kopeck per token, so any text costs something (a 402 needs a price above zero).
    env: { SCRIBE_RATE_LIMIT_RPS: '1000', SCRIBE_PRICES: JSON.stringify({ 'service-embedding_tokens': 1000 }) },
  });
  const client = async (balance = 10) => {
    const { apiKey } = await harness().provision({ balance });
    return new OpenAI({ apiKey, baseURL: `${harness().baseUrl}/v3`, fetch: checkedFetch, maxRetries: 0 });
  };

  test('embeddings.create: the default (base64) and float decode to the same vectors', async () => {
    const openai = await client();
    const input = ['reset my password', 'I forgot my login'];
    const byDefault = await openai.embeddings.create({ model: 'service-embedding', input });
    const floats = await openai.embeddings.create({ model: 'service-embedding', input, encoding_format: 'float' });
    assert.is(byDefault.object, 'list');
    assert.is(byDefault.model, 'service-embedding');
    assert.is(byDefault.data.length, 2);
    assert.ok(byDefault.usage.prompt_tokens > 0);
    assert.equal(byDefault.usage, floats.usage);
    for (const [i, item] of byDefault.data.entries()) {
      assert.is(item.index, i);
      assert.is(item.embedding.length, 512);
      assert.equal(item.embedding, floats.data[i]!.embedding);
    }
  });

  test('embeddings.create with dimensions', async () => {
    const openai = await client();
    const reply = await openai.embeddings.create({ model: 'service-embedding', input: 'hello there', dimensions: 128 });
    const vector = reply.data[0]!.embedding;
    assert.is(vector.length, 128);
    assert.ok(Math.abs(Math.hypot(...vector) - 1) < 1e-5);
  });

  test('errors reach the SDK as typed errors with status, code and param', async () => {
    const openai = await client();
    try {
      await openai.embeddings.create({ model: 'service-embedding', input: 'hello', dimensions: 1000 });
      assert.unreachable('dimensions 1000 was accepted');
    } catch (error) {
      assert.instance(error, OpenAI.BadRequestError);
      const bad = error as InstanceType<typeof OpenAI.BadRequestError>;
      assert.is(bad.status, 400);
      assert.is(bad.code, 'invalid_parameter');
      assert.is(bad.param, 'dimensions');
    }
    try {
      await openai.embeddings.create({ model: 'text-embedding-3-small', input: 'hello' });
      assert.unreachable('an unknown model was accepted');
    } catch (error) {
      assert.instance(error, OpenAI.NotFoundError);
      assert.is((error as InstanceType<typeof OpenAI.NotFoundError>).code, 'model_not_found');
    }
    const broke = await client(0);
    try {
      await broke.embeddings.create({ model: 'service-embedding', input: 'hello' });
      assert.unreachable('an empty account was served');
    } catch (error) {
      assert.instance(error, OpenAI.APIError);
      assert.is((error as InstanceType<typeof OpenAI.APIError>).status, 402);
      assert.is((error as InstanceType<typeof OpenAI.APIError>).code, 'insufficient_balance');
    }
    const stranger = new OpenAI({ apiKey: 'sk-not-a-key', baseURL: `${harness().baseUrl}/v3`, fetch: checkedFetch });
    try {
      await stranger.embeddings.create({ model: 'service-embedding', input: 'hello' });
      assert.unreachable('a wrong key was accepted');
    } catch (error) {
      assert.instance(error, OpenAI.AuthenticationError);
    }
  });

  test.run();
}
