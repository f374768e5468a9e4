// GET /v1/billing/usage on SQLite and PostgreSQL. Tasks in every state and month are written to the `transcriptions`
// table directly, each with its money movements made through the real ledger (reserve, then capture or release, with
// the task id as reference); a `processing` one is leased to another worker, so this server's job runner leaves it
// alone (otherwise it would take it over and fail it for want of media while the test reads). The usage totals must equal what the ledger recorded, and the
// balance's month figures must agree with both. Also: ranges (period, date_from/date_to), their validation in the v2
// body, isolation between accounts, and a foreign task id → 404.
import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { quote } from '../billing/prices.ts';
import { databaseKinds, useHarness, type Harness, type Provisioned } from '../test-support/harness.ts';

interface Task {
  status: 'completed' | 'failed' | 'cancelled' | 'processing';
  mode: 'sync' | 'async' | 'stream';
  priority: 'queue' | 'lightning';
  seconds: number;
  /** Created at this time instead of now (ISO). */
  at?: string;
}

interface Seeded {
  id: string;
  task: Task;
  /** The bucket usage files it under: stream sessions count as lightning whatever their priority column says. */
  bucket: 'lightning' | 'queue';
}

/** Writes a task and its ledger movements the way the pipeline will: reserve first, then capture or release. */
async function seedTask(h: Harness, accountId: string, task: Task): Promise<Seeded> {
  const id = randomUUID();
  const bucket = task.mode === 'stream' || task.priority === 'lightning' ? 'lightning' : 'queue';
  const priced = quote(
    task.mode === 'stream'
      ? { type: 'stream', duration_seconds: task.seconds }
      : { type: 'transcription', duration_seconds: task.seconds, priority: task.priority },
    h.app.config.prices,
  );
  const reservation = await h.app.services.ledger.reserve(accountId, priced.amountMinor, id);
  const completed = task.status === 'completed';
  if (task.status !== 'processing')
    await h.app.services.ledger.settle(reservation.id, completed ? priced.amountMinor : 0);
  const createdAt = task.at ?? new Date().toISOString();
  await h.db('transcriptions').insert({
    id,
    account_id: accountId,
    status: task.status,
    mode: task.mode,
    api_version: 'v3',
    priority: task.priority,
    source_type: 'upload',
    filename: `${task.status}-${task.mode}.wav`,
    file_size: 1000 + task.seconds,
    language: 'en',
    diarization: false,
    duration_seconds: task.seconds,
    minutes_billed: completed ? priced.minutesBilled : null,
    cost_minor: completed ? priced.amountMinor : null,
    progress: completed ? 100 : task.status === 'processing' ? 40 : 0,
    output: null,
    result: completed ? JSON.stringify({ text: 'Hello there.', duration: task.seconds, language: 'en' }) : null,
    error:
      task.status === 'failed'
        ? JSON.stringify({ type: 'server_error', code: 'task_failed', message: 'The engine failed.', param: null })
        : null,
    created_at: createdAt,
    started_at:
      task.status === 'completed' || task.status === 'processing' || task.status === 'failed' ? createdAt : null,
    completed_at: task.status === 'processing' ? null : createdAt,
    ...(task.status === 'processing'
      ? { lease_owner: 'worker-elsewhere', lease_expires_at: new Date(Date.now() + 3_600_000).toISOString() }
      : {}),
  });
  if (task.at) await h.db('ledger_entries').where({ reference: id }).update({ created_at: task.at });
  return { id, task, bucket };
}

const thisMonth: Task[] = [
  { status: 'completed', mode: 'async', priority: 'queue', seconds: 61 },
  { status: 'completed', mode: 'sync', priority: 'lightning', seconds: 125 },
  // A stream session is billed and counted as lightning even with the queue priority column.
  { status: 'completed', mode: 'stream', priority: 'queue', seconds: 30 },
  { status: 'failed', mode: 'async', priority: 'queue', seconds: 240 },
  { status: 'cancelled', mode: 'async', priority: 'lightning', seconds: 90 },
  { status: 'processing', mode: 'async', priority: 'queue', seconds: 600 },
];
const OLD_DAY = '2020-03-15T10:00:00.000Z';

/** Account A with this month's tasks and one from March 2020; account B with one task of its own. */
async function seed(h: Harness) {
  const a = await h.provision({ balance: 1000 });
  const b = await h.provision({ balance: 1000 });
  const tasks: Seeded[] = [];
  for (const task of thisMonth) tasks.push(await seedTask(h, a.id, task));
  const old = await seedTask(h, a.id, {
    status: 'completed',
    mode: 'async',
    priority: 'queue',
    seconds: 300,
    at: OLD_DAY,
  });
  const foreign = await seedTask(h, b.id, { status: 'completed', mode: 'sync', priority: 'lightning', seconds: 600 });
  return { a, b, tasks, old, foreign };
}

/** What the ledger recorded for the given tasks: captures (minor units) per usage bucket, read over the admin API. */
async function ledgerCaptures(h: Harness, account: Provisioned, tasks: Seeded[]) {
  const reply = await h.admin('GET', `/admin/accounts/${account.id}/ledger?limit=100`);
  assert.is(reply.status, 200, reply.text);
  const entries = reply.body.data as { kind: string; amount: number; reference: string | null }[];
  const captured = { lightning: 0, queue: 0 };
  for (const entry of entries.filter((e) => e.kind === 'capture')) {
    const task = tasks.find((t) => t.id === entry.reference);
    if (task) captured[task.bucket] += Math.round(-entry.amount * 100);
  }
  // Every reservation of a settled task was released in full: reserve + release per reference sums to zero.
  for (const task of tasks.filter((t) => t.task.status !== 'processing')) {
    const holds = entries.filter((e) => e.reference === task.id && (e.kind === 'reserve' || e.kind === 'release'));
    assert.is(holds.length, 2);
    assert.is(Math.round(holds.reduce((sum, e) => sum + e.amount * 100, 0)), 0);
  }
  return captured;
}

const day = (date: Date) => date.toISOString().slice(0, 10);

for (const kind of databaseKinds) {
  const test = suite(`usage (${kind})`);
  const harness = useHarness(test, kind);

  test('usage totals of the month equal what the ledger recorded', async () => {
    const h = harness();
    const { a, tasks } = await seed(h);
    const reply = await h.signed(a.signer, 'GET', '/v1/billing/usage');
    assert.is(reply.status, 200, reply.text);
    const usage = reply.body;

    const captured = await ledgerCaptures(h, a, tasks);
    const completed = tasks.filter((t) => t.task.status === 'completed');
    const minutes = (bucket: string) =>
      completed.filter((t) => t.bucket === bucket).reduce((sum, t) => sum + Math.ceil(t.task.seconds / 60), 0);
    const count = (bucket: string) => tasks.filter((t) => t.bucket === bucket).length;
    assert.equal(usage.by_priority, {
      lightning: { count: count('lightning'), minutes: minutes('lightning'), cost: captured.lightning / 100 },
      queue: { count: count('queue'), minutes: minutes('queue'), cost: captured.queue / 100 },
    });
    assert.is(usage.total_cost, (captured.lightning + captured.queue) / 100);
    assert.is(usage.total_minutes, minutes('lightning') + minutes('queue'));
    assert.is(usage.total_transcriptions, 6);
    assert.equal(usage.by_status, { completed: 3, failed: 1, cancelled: 1 });
    // The fixed numbers, so a shared mistake in the price table and the expectations cannot hide: 2 + 3 + 1 minutes,
    // 2 × 1.00 + 3 × 2.00 + 1 × 2.00.
    assert.equal([usage.total_minutes, usage.total_cost], [6, 10]);

    const now = new Date();
    const lastDay = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 0));
    assert.equal(usage.period, { from: `${day(now).slice(0, 8)}01`, to: day(lastDay) });

    // The balance's month figures come from the ledger (charges) and the tasks (minutes): the same numbers.
    const calculate = await h.v3(a.apiKey, 'POST', '/v3/billing/calculate', {
      json: { type: 'transcription', duration_seconds: 1 },
    });
    assert.is(calculate.status, 200, calculate.text);
    assert.equal(calculate.body.balance.usage_current_month, {
      minutes_lightning: usage.by_priority.lightning.minutes,
      minutes_queue: usage.by_priority.queue.minutes,
      total_cost: usage.total_cost,
    });
    // The balance itself is the ledger's: 1000 minus every capture, including the old task's.
    const oldCost = quote({ type: 'transcription', duration_seconds: 300 }, h.app.config.prices).amountMinor;
    assert.is(calculate.body.balance.balance, (100_000 - captured.lightning - captured.queue - oldCost) / 100);
    const processing = tasks.find((t) => t.task.status === 'processing')!;
    const held = quote({ type: 'transcription', duration_seconds: processing.task.seconds }, h.app.config.prices);
    assert.is(
      calculate.body.balance.available_credit,
      (100_000 - captured.lightning - captured.queue - oldCost - held.amountMinor) / 100,
    );
  });

  test('other ranges: day, week and year hold this month’s tasks; a past range holds only its own', async () => {
    const h = harness();
    const { a, old } = await seed(h);
    const month = (await h.signed(a.signer, 'GET', '/v1/billing/usage?period=month')).body;
    for (const period of ['day', 'week', 'year']) {
      const reply = await h.signed(a.signer, 'GET', `/v1/billing/usage?period=${period}`);
      assert.is(reply.status, 200, reply.text);
      const { period: range, ...figures } = reply.body;
      const monthFigures = { ...month };
      delete monthFigures.period;
      assert.equal(figures, monthFigures, period);
      assert.ok(range.from <= day(new Date()) && day(new Date()) <= range.to, `${period}: ${JSON.stringify(range)}`);
    }
    const today = day(new Date());
    const year = (await h.signed(a.signer, 'GET', '/v1/billing/usage?period=year')).body.period;
    assert.equal(year, { from: `${today.slice(0, 4)}-01-01`, to: `${today.slice(0, 4)}-12-31` });
    const week = (await h.signed(a.signer, 'GET', '/v1/billing/usage?period=week')).body.period;
    assert.is(new Date(`${week.from}T00:00:00Z`).getUTCDay(), 1, 'the week starts on Monday');
    assert.is((Date.parse(week.to) - Date.parse(week.from)) / 86_400_000, 6);

    const march = await h.signed(a.signer, 'GET', '/v1/billing/usage?date_from=2020-03-01&date_to=2020-03-31');
    assert.is(march.status, 200, march.text);
    const ledger = await h.db('ledger_entries').where({ reference: old.id, kind: 'capture' }).first();
    assert.equal(march.body, {
      period: { from: '2020-03-01', to: '2020-03-31' },
      total_transcriptions: 1,
      total_minutes: 5,
      total_cost: -Number(ledger.amount_minor) / 100,
      by_priority: { lightning: { count: 0, minutes: 0, cost: 0 }, queue: { count: 1, minutes: 5, cost: 5 } },
      by_status: { completed: 1, failed: 0, cancelled: 0 },
    });
    // Both ends are inclusive.
    const single = await h.signed(a.signer, 'GET', '/v1/billing/usage?date_from=2020-03-15&date_to=2020-03-15');
    assert.is(single.body.total_transcriptions, 1);
    const before = await h.signed(a.signer, 'GET', '/v1/billing/usage?date_from=2020-03-16&date_to=2020-03-31');
    assert.is(before.body.total_transcriptions, 0);
  });

  test('accounts see only their own usage', async () => {
    const h = harness();
    const { b, foreign } = await seed(h);
    const reply = await h.signed(b.signer, 'GET', '/v1/billing/usage');
    assert.is(reply.status, 200, reply.text);
    const captured = await ledgerCaptures(h, b, [foreign]);
    assert.equal(
      [reply.body.total_transcriptions, reply.body.total_minutes, reply.body.total_cost],
      [1, 10, captured.lightning / 100],
    );
    assert.is(reply.body.total_cost, 20);
    const empty = await h.provision();
    const none = await h.signed(empty.signer, 'GET', '/v1/billing/usage');
    assert.equal([none.body.total_transcriptions, none.body.total_cost], [0, 0]);
  });

  test('invalid ranges are 400 VALIDATION_ERROR naming the field', async () => {
    const h = harness();
    const account = await h.provision();
    const cases: [string, string, string?][] = [
      [
        'period=month&date_from=2026-01-01&date_to=2026-01-31',
        'period',
        'period cannot be combined with date_from or date_to.',
      ],
      ['date_from=2026-01-01', 'date_to', 'date_from and date_to go together.'],
      ['date_to=2026-01-01', 'date_from', 'date_from and date_to go together.'],
      ['date_from=2026-02-01&date_to=2026-01-31', 'date_from', 'date_from must not be after date_to.'],
      ['date_from=2023-01-01&date_to=2024-01-02', 'date_to', 'The range is at most 366 days.'],
      ['date_from=2026-02-30&date_to=2026-03-01', 'date_from'],
      ['date_from=01.02.2026&date_to=2026-03-01', 'date_from'],
      ['period=decade', 'period'],
    ];
    for (const [query, field, message] of cases) {
      const reply = await h.signed(account.signer, 'GET', `/v1/billing/usage?${query}`);
      assert.is(reply.status, 400, `${query}: ${reply.text}`);
      assert.is(reply.body.error, 'VALIDATION_ERROR');
      assert.equal(Object.keys(reply.body.errors), [field], `${query}: ${reply.text}`);
      if (message) assert.equal(reply.body, { error: 'VALIDATION_ERROR', message, errors: { [field]: [message] } });
    }
    // 366 days counting both ends is allowed (2024 is a leap year).
    const leap = await h.signed(account.signer, 'GET', '/v1/billing/usage?date_from=2024-01-01&date_to=2024-12-31');
    assert.is(leap.status, 200, leap.text);
  });

  test('a foreign task id is 404, never 403; the owner reads it', async () => {
    const h = harness();
    const { a, b, tasks } = await seed(h);
    const task = tasks.find((t) => t.task.status === 'completed' && t.task.mode === 'async')!;
    const own = await h.v3(a.apiKey, 'GET', `/v3/transcriptions/status/${task.id}`);
    assert.is(own.status, 200, own.text);
    assert.is(own.body.data.id, task.id);
    const notFound = {
      error: { type: 'not_found_error', code: 'not_found', message: 'No such transcription.', param: 'id' },
    };
    for (const id of [task.id, randomUUID()]) {
      const reply = await h.v3(b.apiKey, 'GET', `/v3/transcriptions/status/${id}`);
      assert.is(reply.status, 404, reply.text);
      assert.equal(reply.body, notFound);
    }
  });

  test.run();
}
