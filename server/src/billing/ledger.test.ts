// The ledger on SQLite and PostgreSQL: concurrent reservations never overspend (100 against funds for 37 → exactly 37),
// the ledger sums to the balance, settling is exactly-once even when raced, the overdraft counts only when enabled,
// and what the ledger holds is what the admin surface and /v3/billing/calculate report.
import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ApiError } from '../http/api-error.ts';
import { databaseKinds, useHarness, type Harness } from '../test-support/harness.ts';

const PRICE = 150; // minor units held per reservation

interface Sums {
  balance: number;
  reserved: number;
  /** Sum of every ledger entry. */
  all: number;
  /** Sum of the entries that change the balance (topup, capture, adjust). */
  moving: number;
  /** Sum of reserve and release entries: minus what is still held. */
  holding: number;
  kinds: Record<string, number>;
}

async function sums(h: Harness, accountId: string): Promise<Sums> {
  const account = await h.db('accounts').where({ id: accountId }).first();
  const entries = (await h.db('ledger_entries').where({ account_id: accountId })) as {
    kind: string;
    amount_minor: number | string;
  }[];
  const total = (filter: (kind: string) => boolean) =>
    entries.filter((e) => filter(e.kind)).reduce((sum, e) => sum + Number(e.amount_minor), 0);
  const kinds: Record<string, number> = {};
  for (const entry of entries) kinds[entry.kind] = (kinds[entry.kind] ?? 0) + 1;
  return {
    balance: Number(account.balance_minor),
    reserved: Number(account.reserved_minor),
    all: total(() => true),
    moving: total((kind) => kind === 'topup' || kind === 'capture' || kind === 'adjust'),
    holding: total((kind) => kind === 'reserve' || kind === 'release'),
    kinds,
  };
}

/** Awaits a promise that must fail with 402 insufficient_balance. */
async function refused(promise: Promise<unknown>): Promise<void> {
  try {
    await promise;
  } catch (error) {
    assert.instance(error, ApiError);
    assert.equal([(error as ApiError).status, (error as ApiError).code], [402, 'insufficient_balance']);
    return;
  }
  assert.unreachable('the reservation was accepted');
}

for (const kind of databaseKinds) {
  const test = suite(`ledger (${kind})`);
  const harness = useHarness(test, kind);

  test('100 concurrent reservations against funds for 37 → exactly 37 succeed; the ledger sums to the balance', async () => {
    const h = harness();
    const { id } = await h.provision({ balance: (37 * PRICE) / 100 });
    const results = await Promise.allSettled(
      Array.from({ length: 100 }, (_, i) => h.app.services.ledger.reserve(id, PRICE, `task-${i}`)),
    );
    const won = results.filter((r) => r.status === 'fulfilled');
    const lost = results.filter((r) => r.status === 'rejected');
    assert.is(won.length, 37);
    for (const failure of lost) {
      const reason = (failure as PromiseRejectedResult).reason as ApiError;
      assert.instance(reason, ApiError);
      assert.is(reason.status, 402);
      assert.is(reason.code, 'insufficient_balance');
    }
    let state = await sums(h, id);
    assert.equal(state.kinds, { topup: 1, reserve: 37 });
    assert.is(state.balance, 37 * PRICE);
    assert.is(state.reserved, 37 * PRICE);
    assert.is(state.moving, state.balance, 'topups, captures and adjustments sum to the balance');
    assert.is(-state.holding, state.reserved, 'open reserve entries sum to the reserved funds');
    const reservations = await h.db('reservations').where({ account_id: id, status: 'active' });
    assert.is(reservations.length, 37);
    const view = await h.admin('GET', `/admin/accounts/${id}`);
    assert.equal([view.body.balance, view.body.available], [(37 * PRICE) / 100, 0]);
    await refused(h.app.services.ledger.reserve(id, 1, 'one more'));

    // Settle them all: 20 captured in part, 17 released. Then every entry together sums to the balance.
    const held = won.map((r) => (r as PromiseFulfilledResult<{ id: string }>).value.id);
    await Promise.all(held.map((reservation, i) => h.app.services.ledger.settle(reservation, i < 20 ? 100 : 0)));
    state = await sums(h, id);
    assert.is(state.reserved, 0);
    assert.is(state.balance, 37 * PRICE - 20 * 100);
    assert.is(state.all, state.balance, 'the whole ledger sums to the balance once nothing is held');
    assert.is(state.moving, state.balance);
    assert.is(state.holding, 0);
    assert.equal(state.kinds, { topup: 1, reserve: 37, release: 37, capture: 20 });
    const settled = await h.db('reservations').where({ account_id: id }).select('status');
    assert.is(settled.filter((r) => r.status === 'captured').length, 20);
    assert.is(settled.filter((r) => r.status === 'released').length, 17);
    // balance_after of the newest entry is the balance.
    const last = await h.db('ledger_entries').where({ account_id: id, kind: 'capture' });
    assert.ok(last.some((e) => Number(e.balance_after_minor) === state.balance));
  });

  test('racing settlements of one reservation charge it exactly once', async () => {
    const h = harness();
    const { id } = await h.provision({ balance: 10 });
    const reservation = await h.app.services.ledger.reserve(id, 500, randomUUID());
    const outcomes = await Promise.all(
      Array.from({ length: 10 }, () => h.app.services.ledger.settle(reservation.id, 400)),
    );
    assert.is(outcomes.filter(Boolean).length, 1);
    assert.is(await h.app.services.ledger.settle(reservation.id, 0), false);
    const state = await sums(h, id);
    assert.equal(state.kinds, { topup: 1, reserve: 1, release: 1, capture: 1 });
    assert.is(state.balance, 600);
    assert.is(state.reserved, 0);
    assert.is(state.all, 600);
  });

  test('available funds: balance + credit limit only while the overdraft is enabled, minus reservations', async () => {
    const h = harness();
    const { id } = await h.provision({ balance: 1, credit_limit: 2 });
    await refused(h.app.services.ledger.reserve(id, 101));
    await h.admin('POST', `/admin/accounts/${id}/update`, { json: { overdraft_enabled: true } });
    const first = await h.app.services.ledger.reserve(id, 250);
    await h.app.services.ledger.reserve(id, 50);
    await refused(h.app.services.ledger.reserve(id, 1));
    const view = await h.admin('GET', `/admin/accounts/${id}`);
    assert.equal([view.body.balance, view.body.available], [1, 0]);
    // Capturing into the overdraft takes the balance below zero; the credit limit still bounds what is available.
    await h.app.services.ledger.settle(first.id, 250);
    const after = await h.admin('GET', `/admin/accounts/${id}`);
    assert.equal([after.body.balance, after.body.available], [-1.5, 0]);
    const state = await sums(h, id);
    assert.is(state.moving, state.balance);
    assert.is(-state.holding, state.reserved);
  });

  test('reserving for an unknown account or more than is available writes nothing', async () => {
    const h = harness();
    const { id } = await h.provision({ balance: 1 });
    await refused(h.app.services.ledger.reserve(randomUUID(), 1));
    await refused(h.app.services.ledger.reserve(id, 101));
    const state = await sums(h, id);
    assert.equal(state.kinds, { topup: 1 });
    assert.is(state.reserved, 0);
    assert.equal(await h.db('reservations').where({ account_id: id }), []);
  });

  test('the balance the API reports follows the ledger: calculate shows balance, available and this month’s charges', async () => {
    const h = harness();
    const account = await h.provision({ balance: 20 });
    const reservation = await h.app.services.ledger.reserve(account.id, 700, randomUUID());
    const open = await h.v3(account.apiKey, 'POST', '/v3/billing/calculate', {
      json: { type: 'transcription', duration_seconds: 60 },
    });
    assert.is(open.status, 200, open.text);
    assert.is(open.body.balance.balance, 20);
    assert.is(open.body.balance.available_credit, 13);
    assert.is(open.body.balance.usage_current_month.total_cost, 0);
    await h.app.services.ledger.settle(reservation.id, 600);
    const closed = await h.v3(account.apiKey, 'POST', '/v3/billing/calculate', {
      json: { type: 'transcription', duration_seconds: 60 },
    });
    assert.is(closed.body.balance.balance, 14);
    assert.is(closed.body.balance.available_credit, 14);
    assert.is(closed.body.balance.usage_current_month.total_cost, 6);
    const state = await sums(h, account.id);
    assert.is(state.all, 1400);
  });

  test.run();
}
