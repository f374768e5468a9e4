// Embeddings shared fairly between accounts, through the API with the real Universal Sentence Encoder lite engine:
// while account A's large requests are being embedded, account B's one-word request is answered within a few seconds
// (the accounts' batches take turns) and before A's; A's request over its bound of requests in progress is 429
// `too_many_concurrent_jobs` with Retry-After; a request over the per-request token budget is 400 `invalid_parameter`
// with `param` `input` before anything is reserved. One database kind: nothing here depends on it, and the engine's
// CPU time is the test's cost.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { useHarness, type Reply } from '../test-support/harness.ts';

const ACCOUNT_REQUESTS = 2;
const MAX_TOKENS = 20_000;
/**
 * B's one-word answer within this many ms while A's work is queued (about two batches of A's — one before B's
 * tokenizing, one before its embedding — ≈ 0.1–0.3 s each unloaded), or within a quarter of the time A's requests
 * take, whichever is longer: on a machine slowed several times over, both slow down alike. Served first come first
 * served, B would wait for all of A's work (over three quarters of it).
 */
const FAIR_WAIT_MS = 3000;

const words = 'the quick brown fox jumps over a lazy dog while prices rose again on monday morning'.split(' ');
/** `count` different texts of about 80 tokens each. */
const longTexts = (count: number, seed: string) =>
  Array.from({ length: count }, (_, i) =>
    Array.from(
      { length: 60 },
      (_, j) => `${words[(i * 7 + j) % words.length]}${j % 5 === 0 ? `${seed}${i + j}` : ''}`,
    ).join(' '),
  );

const test = suite('embeddings fairness (sqlite)');
const harness = useHarness(test, 'sqlite', {
  env: {
    SCRIBE_EMBEDDING_ACCOUNT_REQUESTS: String(ACCOUNT_REQUESTS),
    SCRIBE_EMBEDDING_MAX_TOKENS: String(MAX_TOKENS),
    SCRIBE_RATE_LIMIT_RPS: '1000',
  },
});
const embed = (apiKey: string, input: string | string[]) =>
  harness().v3(apiKey, 'POST', '/v3/embeddings/create', { json: { model: 'service-embedding', input } });

test('B’s one-word request is answered within a bound while A’s large requests run; A’s next one is 429', async () => {
  const a = await harness().provision({ balance: 1000 });
  const b = await harness().provision({ balance: 1000 });
  // The model loads with the first request: load it first, so B's time below is waiting and embedding only.
  const warm = await embed(b.apiKey, 'warm');
  assert.is(warm.status, 200, warm.text);

  // Two requests of 128 texts (≈ 10,000 tokens each): several seconds of engine work, one after the other.
  let aDone = 0;
  const aStarted = performance.now();
  const big = [longTexts(128, 'x'), longTexts(128, 'y')].map((input) =>
    embed(a.apiKey, input).then((reply) => {
      aDone++;
      return reply;
    }),
  );
  await new Promise((resolve) => setTimeout(resolve, 1000));

  const third = await embed(a.apiKey, 'one more');
  assert.is(third.status, 429, third.text.slice(0, 300));
  assert.is(third.body.error.code, 'too_many_concurrent_jobs');
  assert.is(third.body.error.param, null);
  assert.ok(Number(third.headers.get('retry-after')) >= 1, `Retry-After ${third.headers.get('retry-after')}`);

  const started = performance.now();
  const small = await embed(b.apiKey, 'hello');
  const waited = performance.now() - started;
  assert.is(small.status, 200, small.text);
  const aStillRunning = aDone === 0;
  const replies: Reply[] = await Promise.all(big);
  const aTook = performance.now() - aStarted;
  for (const reply of replies) assert.is(reply.status, 200, reply.text);
  // A's requests take several seconds; B's, sent while they run, is answered before them and within the bound.
  assert.ok(aStillRunning, `B’s request was answered only after A’s requests (it waited ${Math.round(waited)} ms)`);
  assert.ok(
    waited < Math.max(FAIR_WAIT_MS, aTook / 4),
    `B waited ${Math.round(waited)} ms behind A’s requests, which took ${Math.round(aTook)} ms`,
  );

  // The bound counts requests in progress: once A's have been answered, A is served again.
  const after = await embed(a.apiKey, 'one more');
  assert.is(after.status, 200, after.text);
});

test('a request over the per-request token budget is 400 invalid_parameter on input; nothing is charged', async () => {
  const a = await harness().provision({ balance: 1000 });
  const reply = await embed(a.apiKey, longTexts(300, 'z')); // ≈ 24,000 tokens
  assert.is(reply.status, 400, reply.text.slice(0, 300));
  assert.is(reply.body.error.code, 'invalid_parameter', reply.text);
  assert.is(reply.body.error.param, 'input', reply.text);
  assert.match(reply.body.error.message, String(MAX_TOKENS));
  const ledger = await harness().admin('GET', `/admin/accounts/${a.id}/ledger?limit=100`);
  assert.is(ledger.status, 200, ledger.text);
  const entries = ledger.body.data.filter((e: { reference: string | null }) => e.reference?.startsWith('embedding:'));
  assert.equal(entries, []);
});

test.run();
