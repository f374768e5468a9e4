// One Scribe as the embedding engine of another, on SQLite and PostgreSQL: B runs the embedded USE engine; A is
// configured with `SCRIBE_EMBEDDING_MODEL=openai:<B>/v3#service-embedding` and a key of an account on B, so A's
// openai-compatible engine calls B's `POST /v3/embeddings`. A's vectors are B's; A reports B's token count as usage
// and charges its own account for it while B charges A's account there; B's refusal of an overlong text reaches A's
// client with B's code and param; an unreachable or refusing upstream is 503 engine_unavailable on A with nothing
// charged, and A's /health and /v3/models say so. Both servers run in this process over real HTTP; every answer of
// both is checked against the contract by the harness.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { databaseKinds, startHarness, type Harness, type Provisioned } from '../test-support/harness.ts';
import { cosine } from './vectors.ts';

const PRICES = JSON.stringify({ 'service-embedding_tokens': 1000 }); // 1 kopeck per token

for (const kind of databaseKinds) {
  const test = suite(`Scribe as the upstream embedding engine of Scribe (${kind})`);
  let upstream: Harness | undefined;
  let front: Harness | undefined;
  let onB: Provisioned;

  test.before(async () => {
    upstream = await startHarness(kind, { env: { SCRIBE_PRICES: PRICES, SCRIBE_RATE_LIMIT_RPS: '1000' } });
    onB = await upstream.provision({ balance: 100 });
    front = await startHarness(kind, {
      env: {
        SCRIBE_PRICES: PRICES,
        SCRIBE_RATE_LIMIT_RPS: '1000',
        SCRIBE_EMBEDDING_MODEL: `openai:${upstream.baseUrl}/v3#service-embedding`,
        SCRIBE_EMBEDDING_API_KEY: onB.apiKey,
      },
    });
  });
  test.after(async () => {
    await front?.close();
    await upstream?.close();
  });
  const started = (server: Harness | undefined, name: string): Harness => {
    if (!server) throw new Error(`${name} did not start`);
    return server;
  };
  const A = () => started(front, 'A');
  const B = () => started(upstream, 'B');
  const captures = async (h: Harness, accountId: string) =>
    (await h.admin('GET', `/admin/accounts/${accountId}/ledger?limit=100`)).body.data
      .filter((e: { kind: string }) => e.kind === 'capture')
      .map((e: { amount: number }) => e.amount);

  test('A’s vectors, usage and charges come from B', async () => {
    const onA = await A().provision({ balance: 100 });
    const input = ['reset my password', 'I forgot my login', 'the stock market fell'];
    const direct = await B().v3(onB.apiKey, 'POST', '/v3/embeddings/create', {
      json: { model: 'service-embedding', input },
    });
    assert.is(direct.status, 200, direct.text);
    const chained = await A().v3(onA.apiKey, 'POST', '/v3/embeddings/create', {
      json: { model: 'service-embedding', input, dimensions: 256 },
    });
    assert.is(chained.status, 200, chained.text);
    assert.equal(chained.body.usage, direct.body.usage);
    chained.body.data.forEach((item: { index: number; embedding: number[] }) => {
      assert.is(item.embedding.length, 256);
      const head = direct.body.data[item.index].embedding.slice(0, 256);
      assert.ok(cosine(item.embedding, head) > 0.99999, `vector ${item.index}`);
    });
    const tokens = direct.body.usage.prompt_tokens;
    assert.equal(await captures(A(), onA.id), [-tokens / 100]);
    // B charged A's account there for both calls (the direct one and A's).
    assert.equal(await captures(B(), onB.id), [-tokens / 100, -tokens / 100]);

    const models = await A().v3(onA.apiKey, 'GET', '/v3/models');
    const model = models.body.data.find((m: { id: string }) => m.id === 'service-embedding');
    assert.is(model.engine, 'openai-compatible');
    assert.is(model.status, 'available');
  });

  test('B’s refusal of the input reaches A’s client with B’s code and param; nothing is charged', async () => {
    const onA = await A().provision({ balance: 100 });
    const before = (await captures(B(), onB.id)).length;
    const reply = await A().v3(onA.apiKey, 'POST', '/v3/embeddings', {
      json: { model: 'service-embedding', input: ['short', 'word '.repeat(600)] },
    });
    assert.is(reply.status, 400, reply.text);
    assert.is(reply.body.error.code, 'context_length_exceeded');
    assert.is(reply.body.error.param, 'input.1');
    assert.equal(await captures(A(), onA.id), []);
    assert.is((await captures(B(), onB.id)).length, before);
    const view = await A().admin('GET', `/admin/accounts/${onA.id}`);
    assert.is(view.body.available, 100, 'the reservation was released');
  });

  test('an upstream that refuses A (its account there is empty) is 503 engine_unavailable, nothing charged', async () => {
    const onA = await A().provision({ balance: 100 });
    const balanceOnB = (await B().admin('GET', `/admin/accounts/${onB.id}`)).body.balance;
    await B().admin('POST', `/admin/accounts/${onB.id}/topup`, { json: { amount: -balanceOnB, kind: 'adjust' } });
    try {
      const reply = await A().v3(onA.apiKey, 'POST', '/v3/embeddings/create', {
        json: { model: 'service-embedding', input: 'hello' },
      });
      assert.is(reply.status, 503, reply.text);
      assert.is(reply.body.error.code, 'engine_unavailable');
      assert.is(reply.body.error.param, 'model');
      assert.not.match(reply.text, /127\.0\.0\.1|http:/, 'the upstream address stays internal');
      assert.equal(await captures(A(), onA.id), []);
      assert.is((await A().admin('GET', `/admin/accounts/${onA.id}`)).body.available, 100);
    } finally {
      await B().admin('POST', `/admin/accounts/${onB.id}/topup`, { json: { amount: balanceOnB } });
    }
  });

  test('an unreachable upstream is 503 engine_unavailable, and /health and /v3/models report it', async () => {
    const onA = await A().provision({ balance: 100 });
    await B().close();
    upstream = undefined;
    const reply = await A().v3(onA.apiKey, 'POST', '/v3/embeddings/create', {
      json: { model: 'service-embedding', input: 'hello' },
    });
    assert.is(reply.status, 503, reply.text);
    assert.is(reply.body.error.code, 'engine_unavailable');
    assert.equal(await captures(A(), onA.id), []);
    assert.is((await A().admin('GET', `/admin/accounts/${onA.id}`)).body.available, 100);
    const health = await A().request('GET', '/health');
    assert.is(health.body.checks.engines.embedding, 'unavailable');
    const models = await A().v3(onA.apiKey, 'GET', '/v3/models');
    const model = models.body.data.find((m: { id: string }) => m.id === 'service-embedding');
    assert.is(model.status, 'unavailable');
  });

  test.run();
}
