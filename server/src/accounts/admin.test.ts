// The admin surface on SQLite and PostgreSQL: accounts created with working credentials, read, listed and updated;
// top-ups and adjustments written to the ledger; block and unblock; the ledger listing; 401 with a wrong token; 404
// for an unknown account; and, on a server without an admin token, 404 for the whole surface.
import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ADMIN_TOKEN, byNewest, databaseKinds, useHarness, type Harness } from '../test-support/harness.ts';

const invalidToken = {
  error: {
    type: 'authentication_error',
    code: 'invalid_api_key',
    message: 'Missing or invalid admin token.',
    param: null,
  },
};
const noSuchAccount = {
  error: { type: 'not_found_error', code: 'not_found', message: 'No such account.', param: 'id' },
};

interface Entry {
  id: string;
  kind: string;
  amount: number;
  balance_after: number;
  description: string | null;
  created_at: string;
}

const ledgerOf = async (h: Harness, id: string): Promise<Entry[]> => {
  const reply = await h.admin('GET', `/admin/accounts/${id}/ledger?limit=100`);
  assert.is(reply.status, 200, reply.text);
  return reply.body.data as Entry[];
};

for (const kind of databaseKinds) {
  const test = suite(`admin (${kind})`);
  const harness = useHarness(test, kind);

  test('create: an account with a balance, a v3 key and a v2 key pair that work at once', async () => {
    const h = harness();
    const reply = await h.admin('POST', '/admin/accounts', { json: { name: 'Acme Ltd', balance: 12.5 } });
    assert.is(reply.status, 201, reply.text);
    const { account, api_key: apiKey, public_key: publicKey, secret } = reply.body;
    const { id, created_at: createdAt, ...rest } = account;
    assert.equal(rest, {
      name: 'Acme Ltd',
      balance: 12.5,
      currency: 'RUB',
      credit_limit: 0,
      overdraft_enabled: false,
      tariff_plan: 'standard',
      blocked: false,
      available: 12.5,
    });
    assert.ok(Math.abs(Date.parse(createdAt) - Date.now()) < 60_000);
    assert.match(apiKey, /^sk_live_/);
    assert.match(publicKey, /^pk_/);
    assert.match(secret, /^[0-9a-f]{64}$/);
    assert.is((await h.v3(apiKey, 'GET', '/v3/models')).status, 200);
    const usage = await h.signed({ publicKey, secret }, 'GET', '/v1/billing/usage');
    assert.is(usage.status, 200, usage.text);
    // The secret of the pair is stored encrypted, not in clear.
    const pair = await h.db('key_pairs').where({ public_key: publicKey }).first();
    assert.is(pair.account_id, id);
    assert.not.ok(String(pair.secret_encrypted).includes(secret));
    const ledger = await ledgerOf(h, id);
    assert.equal(
      ledger.map((e) => [e.kind, e.amount, e.balance_after]),
      [['topup', 12.5, 12.5]],
    );
  });

  test('create: without keys, with overdraft settings, and with the defaults of an empty body', async () => {
    const h = harness();
    const reply = await h.admin('POST', '/admin/accounts', {
      json: { credit_limit: 500, overdraft_enabled: true, issue_keys: false, currency: 'EUR', tariff_plan: 'pro' },
    });
    assert.is(reply.status, 201, reply.text);
    assert.is(reply.body.api_key, null);
    assert.is(reply.body.public_key, null);
    assert.is(reply.body.secret, null);
    assert.is(reply.body.account.currency, 'EUR');
    assert.is(reply.body.account.available, 500);
    assert.is(reply.body.account.tariff_plan, 'pro');
    assert.equal(await ledgerOf(h, reply.body.account.id), []);
    const empty = await h.admin('POST', '/admin/accounts', { json: {} });
    assert.is(empty.status, 201, empty.text);
    assert.is(empty.body.account.balance, 0);
    assert.is(empty.body.account.name, null);
    assert.match(empty.body.api_key, /^sk_live_/);
    const invalid = await h.admin('POST', '/admin/accounts', { json: { balance: -1 } });
    assert.is(invalid.status, 400, invalid.text);
    assert.is(invalid.body.error.param, 'balance');
    const currency = await h.admin('POST', '/admin/accounts', { json: { currency: 'rub' } });
    assert.is(currency.status, 400, currency.text);
    assert.is(currency.body.error.param, 'currency');
  });

  test('get, list (paged, newest first) and update', async () => {
    const h = harness();
    const created = [];
    for (const name of ['one', 'two', 'three']) created.push((await h.provisionViaAdmin({ name })).id);
    const got = await h.admin('GET', `/admin/accounts/${created[0]}`);
    assert.is(got.status, 200, got.text);
    assert.is(got.body.name, 'one');

    const seen: { id: string; created_at: string }[] = [];
    let after: string | null = null;
    do {
      const query: string = after ? `?limit=2&after=${after}` : '?limit=2';
      const page = await h.admin('GET', `/admin/accounts${query}`);
      assert.is(page.status, 200, page.text);
      assert.ok(page.body.data.length <= 2);
      seen.push(...page.body.data);
      after = page.body.next_cursor;
      assert.is(page.body.has_more, after !== null);
    } while (after);
    assert.equal(
      seen.map((a) => a.id),
      [...seen].sort(byNewest).map((a) => a.id),
    );
    assert.is(new Set(seen.map((a) => a.id)).size, seen.length, 'an account appears on two pages');
    for (const id of created)
      assert.ok(
        seen.some((a) => a.id === id),
        `account ${id} is not listed`,
      );

    const updated = await h.admin('POST', `/admin/accounts/${created[1]}/update`, {
      json: { name: 'Two Ltd', credit_limit: 50, overdraft_enabled: true, tariff_plan: 'enterprise' },
    });
    assert.is(updated.status, 200, updated.text);
    assert.is(updated.body.name, 'Two Ltd');
    assert.is(updated.body.credit_limit, 50);
    assert.is(updated.body.overdraft_enabled, true);
    assert.is(updated.body.available, 50);
    assert.is(updated.body.tariff_plan, 'enterprise');
    const off = await h.admin('POST', `/admin/accounts/${created[1]}/update`, { json: { overdraft_enabled: false } });
    assert.is(off.body.available, 0);
    assert.is(off.body.credit_limit, 50);
  });

  test('top-up and adjust change the balance through the ledger; invalid amounts are 400 on amount', async () => {
    const h = harness();
    const { id } = await h.provisionViaAdmin({ balance: 100 });
    const topup = await h.admin('POST', `/admin/accounts/${id}/topup`, {
      json: { amount: 25.75, description: 'Invoice 2026-118 paid' },
    });
    assert.is(topup.status, 200, topup.text);
    assert.is(topup.body.balance, 125.75);
    assert.is(topup.body.available, 125.75);
    const adjust = await h.admin('POST', `/admin/accounts/${id}/topup`, {
      json: { amount: -30.5, kind: 'adjust', description: 'Refund reversal' },
    });
    assert.is(adjust.status, 200, adjust.text);
    assert.is(adjust.body.balance, 95.25);
    const upward = await h.admin('POST', `/admin/accounts/${id}/topup`, { json: { amount: 0.01, kind: 'adjust' } });
    assert.is(upward.body.balance, 95.26);

    const amountError = (message: string) => ({
      error: { type: 'invalid_request_error', code: 'invalid_parameter', message, param: 'amount' },
    });
    for (const [json, message] of [
      [{ amount: 0 }, 'A top-up amount must be greater than 0.'],
      [{ amount: -5 }, 'A top-up amount must be greater than 0.'],
      [{ amount: 0, kind: 'adjust' }, 'An adjustment must not be 0.'],
    ] as const) {
      const reply = await h.admin('POST', `/admin/accounts/${id}/topup`, { json });
      assert.is(reply.status, 400, reply.text);
      assert.equal(reply.body, amountError(message));
    }
    const badKind = await h.admin('POST', `/admin/accounts/${id}/topup`, { json: { amount: 5, kind: 'capture' } });
    assert.is(badKind.status, 400, badKind.text);
    assert.is(badKind.body.error.param, 'kind');

    const ledger = await ledgerOf(h, id);
    assert.equal(ledger, [...ledger].sort(byNewest));
    // Chronological order by balance_after (each entry changed the balance), newest first.
    assert.equal(
      ledger.map((e) => [e.kind, e.amount, e.balance_after, e.description]).sort((a, b) => Number(b[2]) - Number(a[2])),
      [
        ['topup', 25.75, 125.75, 'Invoice 2026-118 paid'],
        ['topup', 100, 100, 'Initial balance'],
        ['adjust', 0.01, 95.26, null],
        ['adjust', -30.5, 95.25, 'Refund reversal'],
      ],
    );
    const row = await h.db('accounts').where({ id }).first();
    assert.is(Number(row.balance_minor), 9526);
    const sum = await h.db('ledger_entries').where({ account_id: id }).sum({ total: 'amount_minor' }).first();
    assert.is(Number(sum!.total), 9526);
  });

  test('Idempotency-Key: a retried top-up adds the money once, a retried create makes one account, 409 on reuse', async () => {
    const h = harness();
    const { id } = await h.provisionViaAdmin({ balance: 5 });
    const headers = { 'Idempotency-Key': 'topup-invoice-7' };
    const topup = () => h.admin('POST', `/admin/accounts/${id}/topup`, { json: { amount: 100 }, headers });
    const first = await topup();
    const second = await topup();
    assert.is(first.status, 200, first.text);
    assert.is(second.status, 200, second.text);
    assert.equal(second.body, first.body);
    assert.is(second.headers.get('idempotent-replayed'), 'true');
    assert.is(first.body.balance, 105);
    assert.is(Number((await h.db('accounts').where({ id }).first()).balance_minor), 10500);
    const other = await h.admin('POST', `/admin/accounts/${id}/topup`, { json: { amount: 7 }, headers });
    assert.is(other.status, 409, other.text);
    assert.is(other.body.error.code, 'idempotency_key_reused');

    const createHeaders = { 'Idempotency-Key': 'onboard-acme' };
    const create = () => h.admin('POST', '/admin/accounts', { json: { name: 'Acme once' }, headers: createHeaders });
    const made = await create();
    const again = await create();
    assert.is(made.status, 201, made.text);
    assert.is(again.status, 201, again.text);
    assert.equal(again.body, made.body);
    assert.is((await h.db('accounts').where({ name: 'Acme once' })).length, 1);
    // The replay gives back the credentials made once; the stored answer does not hold them in clear.
    const stored = await h.db('admin_idempotency_keys').where({ key: 'onboard-acme' }).first();
    assert.not.ok(String(stored.response_body).includes(made.body.api_key));
    assert.not.ok(String(stored.response_body).includes(made.body.secret));
  });

  test('ledger: paged newest first, with reservations, releases and captures', async () => {
    const h = harness();
    const { id } = await h.provisionViaAdmin({ balance: 10 });
    const reference = randomUUID();
    const reservation = await h.app.services.ledger.reserve(id, 300, reference);
    await h.app.services.ledger.settle(reservation.id, 250, 'transcribe_queue 2 min');
    const pages: { kind: string; amount: number; balance_after: number; reference: string | null }[][] = [];
    let after: string | null = null;
    do {
      const path: string = `/admin/accounts/${id}/ledger?limit=2${after ? `&after=${after}` : ''}`;
      const page = await h.admin('GET', path);
      assert.is(page.status, 200, page.text);
      pages.push(page.body.data);
      after = page.body.next_cursor;
    } while (after);
    assert.equal(
      pages.map((p) => p.length),
      [2, 2],
    );
    const entries = pages.flat();
    const byKind = Object.fromEntries(entries.map((e) => [e.kind, e]));
    assert.equal(Object.keys(byKind).sort(), ['capture', 'release', 'reserve', 'topup']);
    assert.equal(
      [byKind.reserve!.amount, byKind.reserve!.balance_after, byKind.reserve!.reference],
      [-3, 10, reference],
    );
    assert.equal(
      [byKind.release!.amount, byKind.release!.balance_after, byKind.release!.reference],
      [3, 10, reference],
    );
    assert.equal(
      [byKind.capture!.amount, byKind.capture!.balance_after, byKind.capture!.reference],
      [-2.5, 7.5, reference],
    );
    assert.equal([byKind.topup!.amount, byKind.topup!.reference], [10, null]);
    const account = await h.admin('GET', `/admin/accounts/${id}`);
    assert.is(account.body.balance, 7.5);
    assert.is(account.body.available, 7.5);
  });

  test('block and unblock: the account is refused on v3 and v2 while blocked, admin still reaches it', async () => {
    const h = harness();
    const account = await h.provisionViaAdmin({ balance: 1 });
    const blocked = await h.admin('POST', `/admin/accounts/${account.id}/block`);
    assert.is(blocked.status, 200, blocked.text);
    assert.is(blocked.body.blocked, true);
    assert.is((await h.v3(account.apiKey, 'GET', '/v3/models')).status, 403);
    assert.is((await h.signed(account.signer, 'GET', '/v1/billing/usage')).status, 403);
    const topup = await h.admin('POST', `/admin/accounts/${account.id}/topup`, { json: { amount: 1 } });
    assert.is(topup.status, 200, topup.text);
    assert.is(topup.body.blocked, true);
    const key = await h.admin('POST', `/admin/accounts/${account.id}/keys`, { json: { name: 'while blocked' } });
    assert.is(key.status, 201, key.text);
    assert.is((await h.v3(key.body.secret, 'GET', '/v3/models')).status, 403);
    const twice = await h.admin('POST', `/admin/accounts/${account.id}/block`);
    assert.is(twice.body.blocked, true);

    const unblocked = await h.admin('POST', `/admin/accounts/${account.id}/unblock`);
    assert.is(unblocked.status, 200, unblocked.text);
    assert.is(unblocked.body.blocked, false);
    assert.is((await h.v3(account.apiKey, 'GET', '/v3/models')).status, 200);
    assert.is((await h.v3(key.body.secret, 'GET', '/v3/models')).status, 200);
    assert.is((await h.signed(account.signer, 'GET', '/v1/billing/usage')).status, 200);
  });

  test('issue a v3 key and a v2 key pair for an existing account', async () => {
    const h = harness();
    const account = await h.provisionViaAdmin();
    const key = await h.admin('POST', `/admin/accounts/${account.id}/keys`, { json: { name: 'deploy' } });
    assert.is(key.status, 201, key.text);
    assert.is(key.body.name, 'deploy');
    assert.is((await h.v3(key.body.secret, 'GET', '/v3/models')).status, 200);
    const pair = await h.admin('POST', `/admin/accounts/${account.id}/key-pairs`);
    assert.is(pair.status, 201, pair.text);
    const signer = { publicKey: pair.body.public_key, secret: pair.body.secret };
    assert.is((await h.signed(signer, 'GET', '/v1/billing/usage')).status, 200);
    // The first pair keeps working.
    assert.is((await h.signed(account.signer, 'GET', '/v1/billing/usage')).status, 200);
  });

  test('a missing or wrong admin token is 401, a v3 key or a signature is no admin token', async () => {
    const h = harness();
    const account = await h.provision();
    const wrongTokens = ['', 'wrong', ADMIN_TOKEN.slice(0, -1), `${ADMIN_TOKEN}x`, ADMIN_TOKEN.toUpperCase()];
    for (const token of wrongTokens) {
      for (const [method, path] of [
        ['GET', '/admin/accounts'],
        ['GET', `/admin/accounts/${account.id}`],
        ['POST', `/admin/accounts/${account.id}/block`],
      ] as const) {
        const reply = await h.admin(method, path, { token });
        assert.is(reply.status, 401, `${token}: ${reply.text}`);
        assert.equal(reply.body, invalidToken);
      }
    }
    const bearer = await h.v3(account.apiKey, 'GET', '/admin/accounts', { headers: { 'X-Admin-Token': '' } });
    assert.equal([bearer.status, bearer.body], [401, invalidToken]);
    const signed = await h.signed(account.signer, 'GET', '/admin/accounts', { headers: { 'X-Admin-Token': '' } });
    assert.equal([signed.status, signed.body], [401, invalidToken]);
    const row = await h.db('accounts').where({ id: account.id }).first();
    assert.not.ok(row.blocked === true || row.blocked === 1, 'a refused request blocked the account');
  });

  test('an unknown account id is 404 on every account operation', async () => {
    const h = harness();
    const id = randomUUID();
    const cases: [string, string, unknown][] = [
      ['GET', `/admin/accounts/${id}`, undefined],
      ['POST', `/admin/accounts/${id}/update`, { name: 'x' }],
      ['POST', `/admin/accounts/${id}/topup`, { amount: 1 }],
      ['POST', `/admin/accounts/${id}/block`, undefined],
      ['POST', `/admin/accounts/${id}/unblock`, undefined],
      ['POST', `/admin/accounts/${id}/keys`, {}],
      ['POST', `/admin/accounts/${id}/key-pairs`, undefined],
      ['GET', `/admin/accounts/${id}/ledger`, undefined],
    ];
    for (const [method, path, json] of cases) {
      const reply = await h.admin(method, path, { json });
      assert.is(reply.status, 404, `${method} ${path}: ${reply.text}`);
      assert.equal(reply.body, noSuchAccount);
    }
    assert.is(await h.db('accounts').where({ id }).first(), undefined);
    assert.equal(await h.db('ledger_entries').where({ account_id: id }), []);
    assert.equal(await h.db('api_keys').where({ account_id: id }), []);
  });

  test.run();

  const disabled = suite(`admin disabled (${kind})`);
  const withoutToken = useHarness(disabled, kind, { adminToken: null });

  disabled(
    'without a configured admin token every admin operation is 404 naming the setting, whatever token is sent',
    async () => {
      const h = withoutToken();
      const account = await h.provision({ balance: 1 });
      const message =
        'The admin surface is off: this server was started without SCRIBE_ADMIN_TOKEN. ' +
        'Set it to a token of your choice and send that token in X-Admin-Token.';
      const notFound = { error: { type: 'not_found_error', code: 'not_found', message, param: null } };
      for (const token of ['', ADMIN_TOKEN, 'undefined']) {
        for (const [method, path, json] of [
          ['GET', '/admin/accounts', undefined],
          ['POST', '/admin/accounts', { balance: 1000 }],
          ['GET', `/admin/accounts/${account.id}`, undefined],
          ['POST', `/admin/accounts/${account.id}/topup`, { amount: 1000 }],
          ['GET', `/admin/accounts/${account.id}/ledger`, undefined],
        ] as const) {
          const reply = await h.request(method, path, { json, headers: { 'X-Admin-Token': token } });
          assert.is(reply.status, 404, `${method} ${path}: ${reply.text}`);
          assert.equal(reply.body, notFound);
        }
      }
      const row = await h.db('accounts').where({ id: account.id }).first();
      assert.is(Number(row.balance_minor), 100);
      // The rest of the server works as usual.
      assert.is((await h.v3(account.apiKey, 'GET', '/v3/models')).status, 200);
    },
  );

  disabled.run();
}
