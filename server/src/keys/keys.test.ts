// v3 keys on SQLite and PostgreSQL: create (secret shown once, stored as a hash), list (no secrets, newest first,
// paged), revoke (the key stops working at once), a foreign or unknown id → 404, and the limit of 100 live keys per
// account, also under concurrent creation.
import { createHash, randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { byNewest, databaseKinds, useHarness, type Harness } from '../test-support/harness.ts';

const LIMIT = 100;
const keyLimit = {
  error: {
    type: 'invalid_request_error',
    code: 'key_limit_exceeded',
    message: `An account can have at most ${LIMIT} live keys; revoke one first.`,
    param: null,
  },
};

/** Issues keys through the service until the account has `live` live keys. */
async function fillKeys(h: Harness, accountId: string, live: number) {
  const current = await h.app.db('api_keys').where({ account_id: accountId }).whereNull('revoked_at').count({ n: '*' });
  for (let i = Number(current[0]!.n); i < live; i++) await h.app.services.keys.issueApiKey(accountId, `bulk-${i}`);
}

const AUTH_CACHE_MS = 300;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

for (const kind of databaseKinds) {
  const test = suite(`keys (${kind})`);
  // A short credential cache so the tests can watch it expire.
  const harness = useHarness(test, kind, { env: { SCRIBE_AUTH_CACHE_MS: String(AUTH_CACHE_MS) } });
  const fresh = () => harness().provision({ balance: 5 });

  test('create returns the secret once; only its SHA-256 hash is stored; the new key authenticates', async () => {
    const h = harness();
    const account = await fresh();
    const reply = await h.v3(account.apiKey, 'POST', '/v3/keys/create', { json: { name: 'ci runner' } });
    assert.is(reply.status, 201, reply.text);
    const { secret, id, name, prefix, created_at: createdAt, last_used_at: lastUsed, revoked_at: revoked } = reply.body;
    assert.match(secret, /^sk_live_[0-9A-Za-z]{32}$/);
    assert.is(prefix, secret.slice(0, 16));
    assert.is(name, 'ci runner');
    assert.is(lastUsed, null);
    assert.is(revoked, null);
    assert.ok(Math.abs(Date.parse(createdAt) - Date.now()) < 60_000);
    const row = await h.db('api_keys').where({ id }).first();
    assert.is(row.account_id, account.id);
    assert.is(row.secret_hash, createHash('sha256').update(secret).digest('hex'));
    assert.not.ok(JSON.stringify(row).includes(secret), 'the secret is stored in clear');
    assert.is((await h.v3(secret, 'GET', '/v3/models')).status, 200);
    // Without a body (an empty JSON object) the key has no name.
    const unnamed = await h.v3(account.apiKey, 'POST', '/v3/keys/create', { json: {} });
    assert.is(unnamed.status, 201, unnamed.text);
    assert.is(unnamed.body.name, null);
  });

  test('list shows the account’s keys without secrets, newest first, paged', async () => {
    const h = harness();
    const account = await fresh();
    const other = await fresh();
    const created: string[] = [];
    for (const name of ['first', 'second', 'third']) {
      created.push((await h.v3(account.apiKey, 'POST', '/v3/keys/create', { json: { name } })).body.id);
    }
    const all = await h.v3(account.apiKey, 'GET', '/v3/keys/list');
    assert.is(all.status, 200, all.text);
    assert.is(all.body.has_more, false);
    assert.is(all.body.next_cursor, null);
    const keys = all.body.data as { id: string; name: string; created_at: string }[];
    const names = keys.map((k) => k.name);
    assert.equal([...names].sort(), ['default', 'first', 'second', 'third']);
    // Newest first by (created_at, id): keys created in the same millisecond are ordered by id.
    const ordered = [...keys].sort((a, b) => byNewest(a, b));
    assert.equal(
      names,
      ordered.map((k) => k.name),
    );
    for (const key of all.body.data) assert.not.ok('secret' in key || 'secret_hash' in key);

    const pages: string[] = [];
    let after: string | null = null;
    // The page size reaches the database as a number: limit=3 reads 4 rows to know whether more follow.
    const limits: unknown[] = [];
    const onQuery = (query: { sql: string; bindings?: unknown[] }) => {
      if (/from .api_keys. where .account_id./.test(query.sql)) limits.push(query.bindings?.at(-1));
    };
    h.db.on('query', onQuery);
    do {
      const page: Awaited<ReturnType<Harness['v3']>> = await h.v3(
        account.apiKey,
        'GET',
        `/v3/keys/list?limit=3${after ? `&after=${after}` : ''}`,
      );
      assert.is(page.status, 200, page.text);
      pages.push(...(page.body.data as { name: string }[]).map((k) => k.name));
      assert.is(page.body.has_more, page.body.next_cursor !== null);
      after = page.body.next_cursor;
    } while (after);
    h.db.removeListener('query', onQuery);
    assert.equal(pages, names);
    assert.equal(limits, [4, 4]);
    // The other account sees only its own key.
    const theirs = await h.v3(other.apiKey, 'GET', '/v3/keys/list');
    assert.equal(
      (theirs.body.data as { id: string }[]).map((k) => created.includes(k.id)),
      [false],
    );
  });

  test('last_used_at: null until the key authenticates a request, then updated at most once a minute', async () => {
    const h = harness();
    const account = await fresh();
    const created = (await h.v3(account.apiKey, 'POST', '/v3/keys/create', { json: { name: 'tracked' } })).body;
    const lastUsed = async () => {
      const list = await h.v3(account.apiKey, 'GET', '/v3/keys/list');
      return (list.body.data as { id: string; last_used_at: string | null }[]).find((k) => k.id === created.id)!
        .last_used_at;
    };
    assert.is(await lastUsed(), null);
    const before = Date.now();
    assert.is((await h.v3(created.secret, 'GET', '/v3/models')).status, 200);
    const first = await lastUsed();
    assert.ok(first !== null && Date.parse(first) >= before - 1000 && Date.parse(first) <= Date.now(), String(first));
    assert.is((await h.v3(created.secret, 'GET', '/v3/models')).status, 200);
    assert.is(await lastUsed(), first, 'updated again within the minute');
    // A minute later the next request updates it.
    const aMinuteAgo = new Date(Date.now() - 61_000).toISOString();
    await h.db('api_keys').where({ id: created.id }).update({ last_used_at: aMinuteAgo });
    await sleep(AUTH_CACHE_MS + 50); // the key is remembered in-process for the cache's lifetime
    assert.is((await h.v3(created.secret, 'GET', '/v3/models')).status, 200);
    const later = await lastUsed();
    assert.ok(later !== null && Date.parse(later) > Date.parse(aMinuteAgo) + 60_000, String(later));
  });

  test('a key revoked by another process (straight in the database) stops working within the cache lifetime', async () => {
    const h = harness();
    const account = await fresh();
    assert.is((await h.v3(account.apiKey, 'GET', '/v3/models')).status, 200);
    await h.db('api_keys').where({ account_id: account.id }).update({ revoked_at: new Date().toISOString() });
    // Remembered: still accepted right after the change made behind this process's back…
    assert.is((await h.v3(account.apiKey, 'GET', '/v3/models')).status, 200);
    await sleep(AUTH_CACHE_MS + 50);
    // …and refused once the cache entry has expired.
    const refused = await h.v3(account.apiKey, 'GET', '/v3/models');
    assert.is(refused.status, 401, refused.text);
    assert.is(refused.body.error.code, 'invalid_api_key');
  });

  test('revoke: 200 with revoked_at, the key is 401 from then on, revoking again changes nothing', async () => {
    const h = harness();
    const account = await fresh();
    const spare = (await h.v3(account.apiKey, 'POST', '/v3/keys/create', { json: { name: 'spare' } })).body;
    const revoked = await h.v3(account.apiKey, 'POST', `/v3/keys/revoke/${spare.id}`);
    assert.is(revoked.status, 200, revoked.text);
    assert.is(revoked.body.id, spare.id);
    assert.ok(revoked.body.revoked_at !== null);
    assert.not.ok('secret' in revoked.body);
    const invalidKey = {
      error: {
        type: 'authentication_error',
        code: 'invalid_api_key',
        message: 'Missing or invalid API key.',
        param: null,
      },
    };
    for (const path of ['/v3/models', '/v3/keys/list']) {
      const reply = await h.v3(spare.secret, 'GET', path);
      assert.is(reply.status, 401, reply.text);
      assert.equal(reply.body, invalidKey);
    }
    const again = await h.v3(account.apiKey, 'POST', `/v3/keys/revoke/${spare.id}`);
    assert.is(again.status, 200, again.text);
    assert.is(again.body.revoked_at, revoked.body.revoked_at);
    // A key can revoke itself; the request that does it still succeeds, the next one does not.
    const self = await h.v3(account.apiKey, 'GET', '/v3/keys/list');
    const defaultKey = (self.body.data as { id: string; name: string }[]).find((k) => k.name === 'default')!;
    assert.is((await h.v3(account.apiKey, 'POST', `/v3/keys/revoke/${defaultKey.id}`)).status, 200);
    assert.is((await h.v3(account.apiKey, 'GET', '/v3/models')).status, 401);
  });

  test('a foreign or unknown key id is 404 not_found, and the foreign key keeps working', async () => {
    const h = harness();
    const owner = await fresh();
    const stranger = await fresh();
    const ownerKeys = await h.v3(owner.apiKey, 'GET', '/v3/keys/list');
    const ownerKeyId = ownerKeys.body.data[0].id;
    const notFound = { error: { type: 'not_found_error', code: 'not_found', message: 'No such key.', param: 'id' } };
    for (const id of [ownerKeyId, randomUUID()]) {
      const reply = await h.v3(stranger.apiKey, 'POST', `/v3/keys/revoke/${id}`);
      assert.is(reply.status, 404, reply.text);
      assert.equal(reply.body, notFound);
    }
    assert.is((await h.v3(owner.apiKey, 'GET', '/v3/models')).status, 200);
    const row = await h.db('api_keys').where({ id: ownerKeyId }).first();
    assert.is(row.revoked_at, null);
    const malformed = await h.v3(stranger.apiKey, 'POST', '/v3/keys/revoke/123');
    assert.is(malformed.status, 400, malformed.text);
    assert.is(malformed.body.error.param, 'id');
  });

  test(`key limit: the ${LIMIT}th live key is created, the next is 409 key_limit_exceeded until one is revoked`, async () => {
    const h = harness();
    const account = await fresh();
    await fillKeys(h, account.id, LIMIT - 1);
    const last = await h.v3(account.apiKey, 'POST', '/v3/keys/create', { json: { name: 'hundredth' } });
    assert.is(last.status, 201, last.text);
    const over = await h.v3(account.apiKey, 'POST', '/v3/keys/create', { json: { name: 'one too many' } });
    assert.is(over.status, 409, over.text);
    assert.equal(over.body, keyLimit);
    const viaAdmin = await h.admin('POST', `/admin/accounts/${account.id}/keys`, { json: { name: 'admin' } });
    assert.is(viaAdmin.status, 409, viaAdmin.text);
    assert.equal(viaAdmin.body, keyLimit);
    const live = await h.db('api_keys').where({ account_id: account.id }).whereNull('revoked_at').count({ n: '*' });
    assert.is(Number(live[0]!.n), LIMIT);

    assert.is((await h.v3(account.apiKey, 'POST', `/v3/keys/revoke/${last.body.id}`)).status, 200);
    const replacement = await h.v3(account.apiKey, 'POST', '/v3/keys/create', { json: { name: 'replacement' } });
    assert.is(replacement.status, 201, replacement.text);
    assert.is((await h.v3(account.apiKey, 'POST', '/v3/keys/create', { json: {} })).status, 409);
  });

  test('key limit under concurrency: with one slot left, exactly one of eight parallel creates succeeds', async () => {
    const h = harness();
    const account = await fresh();
    // Only the service was used so far, so the eight requests are the account's first and all pass the rate limit.
    await fillKeys(h, account.id, LIMIT - 1);
    const replies = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        h.v3(account.apiKey, 'POST', '/v3/keys/create', { json: { name: `race ${i}` } }),
      ),
    );
    assert.equal(replies.map((r) => r.status).sort(), [201, 409, 409, 409, 409, 409, 409, 409]);
    const live = await h.db('api_keys').where({ account_id: account.id }).whereNull('revoked_at').count({ n: '*' });
    assert.is(Number(live[0]!.n), LIMIT);
  });

  test.run();
}
