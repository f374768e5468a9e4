// The per-account limit of 10 requests per second, on SQLite (in-memory limiter) and PostgreSQL (shared table): 11
// requests in one second give exactly one 429 with a valid Retry-After, on v3 and on the signed surface; the limit is
// per account, refused credentials and the admin surface are not counted, and the window reopens after Retry-After.
// The failed-authentication limit per credential and per address through the API, and its in-memory counts on their
// own: a window with no refusal looks nothing up, and a credential's count still refuses after its address's ended.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { openDatabase } from '../db/database.ts';
import { databaseKinds, useHarness, type Reply } from '../test-support/harness.ts';
import { clientAddressOf, parseTrustedProxies } from './client-address.ts';
import { ApiError } from './api-error.ts';
import { createFailedAuthLimit } from './rate-limit.ts';

const LIMIT = 10;

function statuses(replies: Reply[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const reply of replies) counts[reply.status] = (counts[reply.status] ?? 0) + 1;
  return counts;
}

/** Checks the one 429 of a burst and returns its Retry-After in seconds. */
function checkLimited(limited: Reply): number {
  const retryAfter = limited.headers.get('retry-after');
  assert.ok(retryAfter !== null, 'Retry-After is missing');
  assert.match(retryAfter!, /^[1-9]\d*$/, `Retry-After "${retryAfter}" is not a whole number of seconds ≥ 1`);
  assert.ok(Number(retryAfter) <= 1, `Retry-After ${retryAfter} is longer than the 1 s window`);
  assert.is(limited.headers.get('ratelimit-limit'), String(LIMIT));
  assert.is(limited.headers.get('ratelimit-remaining'), '0');
  assert.match(limited.headers.get('ratelimit-reset') ?? '', /^[01]$/);
  return Number(retryAfter);
}

for (const kind of databaseKinds) {
  const test = suite(`rate limit (${kind})`);
  const harness = useHarness(test, kind);

  test('v3: 11 requests in one second → exactly one 429 with Retry-After, and the window reopens', async () => {
    const h = harness();
    const account = await h.provision();
    // Another account's request first: the operation's validators are compiled on its first use, not in the burst.
    await h.v3((await h.provision()).apiKey, 'GET', '/v3/models');
    const started = Date.now();
    const replies = await Promise.all(Array.from({ length: 11 }, () => h.v3(account.apiKey, 'GET', '/v3/models')));
    assert.ok(Date.now() - started < 1000, 'the burst took more than a second; the test proves nothing');
    assert.equal(statuses(replies), { 200: 10, 429: 1 });
    const limited = replies.find((reply) => reply.status === 429)!;
    assert.equal(limited.body, {
      error: {
        type: 'rate_limit_error',
        code: 'rate_limit_exceeded',
        message: 'Rate limit of 10 requests per second exceeded.',
        param: null,
      },
    });
    const retryAfter = checkLimited(limited);
    // Every success carries the limit headers; the remaining counts are 9..0, one each.
    const remaining = replies
      .filter((reply) => reply.status === 200)
      .map((reply) => {
        assert.is(reply.headers.get('ratelimit-limit'), String(LIMIT));
        return Number(reply.headers.get('ratelimit-remaining'));
      })
      .sort((a, b) => a - b);
    assert.equal(remaining, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);

    await new Promise((resolve) => setTimeout(resolve, retryAfter * 1000 + 50));
    const again = await h.v3(account.apiKey, 'GET', '/v3/models');
    assert.is(again.status, 200, again.text);
    assert.is(again.headers.get('ratelimit-remaining'), '9');
  });

  test('11 sequential requests within a second → the 11th is the 429', async () => {
    const h = harness();
    const account = await h.provision();
    const started = Date.now();
    const seen: number[] = [];
    for (let i = 0; i < 11; i++) seen.push((await h.v3(account.apiKey, 'GET', '/v3/keys/list')).status);
    assert.ok(Date.now() - started < 1000, 'the requests took more than a second; the test proves nothing');
    assert.equal(seen, [...Array<number>(10).fill(200), 429]);
  });

  test('v2: the signed surface has the same limit and answers RATE_LIMITED with Retry-After', async () => {
    const h = harness();
    const account = await h.provision();
    const replies = await Promise.all(
      Array.from({ length: 11 }, () => h.signed(account.signer, 'GET', '/v1/billing/usage')),
    );
    assert.equal(statuses(replies), { 200: 10, 429: 1 });
    const limited = replies.find((reply) => reply.status === 429)!;
    assert.equal(limited.body, {
      error: 'RATE_LIMITED',
      message: 'Rate limit of 10 requests per second exceeded.',
      errors: {},
    });
    checkLimited(limited);
  });

  test('the limit is per account: v3 and v2 calls of one account share it, another account is unaffected', async () => {
    const h = harness();
    const first = await h.provision();
    const second = await h.provision();
    const mixed = await Promise.all([
      ...Array.from({ length: 6 }, () => h.v3(first.apiKey, 'GET', '/v3/models')),
      ...Array.from({ length: 5 }, () => h.signed(first.signer, 'GET', '/v1/billing/usage')),
    ]);
    assert.equal(statuses(mixed), { 200: 10, 429: 1 });
    const other = await Promise.all(Array.from({ length: 10 }, () => h.v3(second.apiKey, 'GET', '/v3/models')));
    assert.equal(statuses(other), { 200: 10 });
  });

  test('refused credentials do not use up the account’s requests', async () => {
    const h = harness();
    const account = await h.provision();
    const refused = await Promise.all(
      Array.from({ length: 12 }, () =>
        h.signed(account.signer, 'GET', '/v1/billing/usage', { signature: 'f'.repeat(64) }),
      ),
    );
    assert.equal(statuses(refused), { 401: 12 });
    const replies = await Promise.all(
      Array.from({ length: 10 }, () => h.signed(account.signer, 'GET', '/v1/billing/usage')),
    );
    assert.equal(statuses(replies), { 200: 10 });
  });

  test('the admin surface is not rate limited', async () => {
    const h = harness();
    const replies = await Promise.all(Array.from({ length: 15 }, () => h.admin('GET', '/admin/accounts?limit=1')));
    assert.equal(statuses(replies), { 200: 15 });
    assert.is(replies[0]!.headers.get('ratelimit-limit'), null);
  });

  test.run();
}

// Refused credentials per client address and presented credential, and per client address (both set low here; they
// are off by default under NODE_ENV=test). Every request of the tests comes from 127.0.0.1.
for (const kind of databaseKinds) {
  const test = suite(`failed authentication limit per credential (${kind})`);
  const harness = useHarness(test, kind, {
    env: { SCRIBE_AUTH_FAILURES_PER_CREDENTIAL: '5', SCRIBE_AUTH_FAILURES_PER_ADDRESS: '0' },
  });

  test('v3: 5 refused attempts with one key, then 429 with Retry-After; another account’s key still works', async () => {
    const h = harness();
    const account = await h.provision();
    const other = await h.provision();
    const wrong = account.apiKey.slice(0, -4) + 'AAAA';
    const seen: number[] = [];
    for (let i = 0; i < 5; i++) seen.push((await h.v3(wrong, 'GET', '/v3/models')).status);
    assert.equal(seen, [401, 401, 401, 401, 401]);
    const limited = await h.v3(wrong, 'GET', '/v3/models');
    assert.is(limited.status, 429, limited.text);
    assert.is(limited.body.error.code, 'rate_limit_exceeded');
    assert.is(limited.body.error.type, 'rate_limit_error');
    assert.match(limited.body.error.message, /failed authentication/);
    const retryAfter = Number(limited.headers.get('retry-after'));
    assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
    assert.is(limited.headers.get('ratelimit-limit'), '5');
    assert.is(limited.headers.get('ratelimit-remaining'), '0');
    const good = await h.v3(other.apiKey, 'GET', '/v3/models');
    assert.is(good.status, 200, good.text);
  });

  test('v2: refused signatures of one public key, then 429 RATE_LIMITED; another account signs as usual', async () => {
    const h = harness();
    const account = await h.provision();
    const other = await h.provision();
    const bad = { signature: 'f'.repeat(64) };
    for (let i = 0; i < 5; i++) {
      const refused = await h.signed(account.signer, 'GET', '/v1/billing/usage', bad);
      assert.is(refused.status, 401, refused.text);
    }
    const limited = await h.signed(account.signer, 'GET', '/v1/billing/usage', bad);
    assert.is(limited.status, 429, limited.text);
    assert.is(limited.body.error, 'RATE_LIMITED');
    assert.equal(limited.body.errors, {});
    assert.match(limited.headers.get('retry-after') ?? '', /^[1-9]\d*$/);
    const good = await h.signed(other.signer, 'GET', '/v1/billing/usage');
    assert.is(good.status, 200, good.text);
  });

  test('requests without credentials are neither counted nor refused by it', async () => {
    const h = harness();
    const replies = await Promise.all(Array.from({ length: 8 }, () => h.request('GET', '/v3/models')));
    assert.equal(statuses(replies), { 401: 8 });
  });

  test.run();
}

for (const kind of databaseKinds) {
  const test = suite(`failed authentication limit per address (${kind})`);
  const harness = useHarness(test, kind, {
    env: { SCRIBE_AUTH_FAILURES_PER_CREDENTIAL: '0', SCRIBE_AUTH_FAILURES_PER_ADDRESS: '6' },
  });

  test('6 refused keys (all different) from one address, then even a good key from it is 429', async () => {
    const h = harness();
    const account = await h.provision();
    for (let i = 0; i < 6; i++) {
      const refused = await h.v3(`sk_live_${String(i).repeat(32)}`, 'GET', '/v3/models');
      assert.is(refused.status, 401, refused.text);
    }
    const limited = await h.v3(account.apiKey, 'GET', '/v3/models');
    assert.is(limited.status, 429, limited.text);
    assert.is(limited.headers.get('ratelimit-limit'), '6');
    assert.match(limited.headers.get('retry-after') ?? '', /^[1-9]\d*$/);
  });

  test.run();
}

// Its own server: the suite above has already used up 127.0.0.1's refusals.
for (const kind of databaseKinds) {
  const test = suite(`failed authentication limit on the admin token (${kind})`);
  const harness = useHarness(test, kind, {
    env: { SCRIBE_AUTH_FAILURES_PER_CREDENTIAL: '0', SCRIBE_AUTH_FAILURES_PER_ADDRESS: '6' },
  });

  test('admin token guesses are counted like keys: after 6 wrong tokens even the right one is 429', async () => {
    const h = harness();
    for (let i = 0; i < 6; i++) {
      const refused = await h.admin('GET', '/admin/accounts', { token: `guess-${i}-of-the-operator-token` });
      assert.is(refused.status, 401, refused.text);
    }
    const limited = await h.admin('GET', '/admin/accounts');
    assert.is(limited.status, 429, limited.text);
    assert.match(limited.headers.get('retry-after') ?? '', /^[1-9]\d*$/);
  });

  test.run();
}

// Behind a load balancer: the peer is the balancer, the client is in X-Forwarded-For, believed from trusted peers only.
for (const kind of databaseKinds) {
  const test = suite(`failed authentication limit behind a trusted proxy (${kind})`);
  const harness = useHarness(test, kind, {
    env: {
      SCRIBE_AUTH_FAILURES_PER_CREDENTIAL: '0',
      SCRIBE_AUTH_FAILURES_PER_ADDRESS: '3',
      SCRIBE_TRUSTED_PROXIES: '127.0.0.1, 10.0.0.0/8',
    },
  });

  test('one client guessing behind the balancer locks out that client only, not everyone behind it', async () => {
    const h = harness();
    const account = await h.provision();
    const from = (client: string) => ({ headers: { 'X-Forwarded-For': `${client}, 10.1.2.3` } });
    for (let i = 0; i < 3; i++) {
      const refused = await h.v3(`sk_live_${String(i).repeat(32)}`, 'GET', '/v3/models', from('203.0.113.7'));
      assert.is(refused.status, 401, refused.text);
    }
    const guesser = await h.v3(account.apiKey, 'GET', '/v3/models', from('203.0.113.7'));
    assert.is(guesser.status, 429, guesser.text);
    const neighbour = await h.v3(account.apiKey, 'GET', '/v3/models', from('198.51.100.20'));
    assert.is(neighbour.status, 200, neighbour.text);
  });

  test.run();
}

{
  const test = suite('the client address (X-Forwarded-For from trusted peers only)');
  const trusted = parseTrustedProxies(['127.0.0.1', '10.0.0.0/8', '::1']);

  test('a trusted peer: the rightmost untrusted hop; an untrusted peer: its own address, the header ignored', () => {
    assert.is(clientAddressOf('127.0.0.1', '203.0.113.7, 10.0.0.5', trusted), '203.0.113.7');
    assert.is(clientAddressOf('::ffff:127.0.0.1', '198.51.100.1, 203.0.113.7', trusted), '203.0.113.7');
    assert.is(clientAddressOf('127.0.0.1', '', trusted), '127.0.0.1');
    assert.is(clientAddressOf('127.0.0.1', '10.0.0.1, 10.0.0.2', trusted), '10.0.0.1');
    assert.is(clientAddressOf('127.0.0.1', 'garbage', trusted), '127.0.0.1');
    assert.is(clientAddressOf('192.0.2.50', '203.0.113.7', trusted), '192.0.2.50', 'a spoofed header');
    assert.is(clientAddressOf('127.0.0.1', '203.0.113.7', []), '127.0.0.1', 'no trusted proxies');
  });

  test.run();
}

{
  const test = suite('failed authentication counts in memory (SQLite: one process)');
  const dir = mkdtempSync(join(tmpdir(), 'scribe-failed-auth-'));
  const db = openDatabase({ databaseUrl: undefined, dataDir: dir });
  test.after(async () => {
    await db.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  const refusal = async (promise: Promise<void>): Promise<number | undefined> => {
    try {
      await promise;
      return undefined;
    } catch (error) {
      assert.instance(error, ApiError);
      return (error as ApiError).status;
    }
  };

  test('no refusal in the window: nothing is looked up, not even the digest of the credential', async () => {
    const limit = createFailedAuthLimit(db, { perAddress: 3, perCredential: 2, windowSeconds: 1 })!;
    let digests = 0;
    const credential = () => {
      digests += 1;
      return 'bearer:a';
    };
    for (let i = 0; i < 5; i++) assert.is(await refusal(limit.check('10.0.0.1', credential)), undefined);
    assert.is(digests, 0);
    await limit.fail('10.0.0.1', 'bearer:a');
    assert.is(await refusal(limit.check('10.0.0.1', credential)), undefined);
    assert.is(digests, 1, 'after a refusal the counts are looked up');
  });

  test("a credential's count refuses for its whole window, also after its address's count ended", async () => {
    const limit = createFailedAuthLimit(db, { perAddress: 100, perCredential: 2, windowSeconds: 1 })!;
    await limit.fail('10.0.0.2', 'bearer:first'); // the address's count begins here
    await sleep(600);
    await limit.fail('10.0.0.2', 'bearer:second'); // the credential's, 0.6 s later
    await limit.fail('10.0.0.2', 'bearer:second');
    assert.is(await refusal(limit.check('10.0.0.2', () => 'bearer:second')), 429);
    await sleep(550); // the address's window has ended, the credential's has not
    assert.is(await refusal(limit.check('10.0.0.2', () => 'bearer:second')), 429);
    assert.is(await refusal(limit.check('10.0.0.2', () => 'bearer:first')), undefined);
    await sleep(600);
    assert.is(await refusal(limit.check('10.0.0.2', () => 'bearer:second')), undefined);
  });

  test.run();
}
