// Price calculation on SQLite and PostgreSQL: POST /v3/billing/calculate for every type (minutes rounded up, tokens
// per 1,000, the account's balance alongside, nothing written to the ledger) and POST /v2/transcriptions/calculate
// with its MM:SS duration, the echoed file fields, and the v2 validation body (`errors.duration`) for bad formats.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { databaseKinds, useHarness, type Provisioned } from '../test-support/harness.ts';

const CALCULATE = '/v2/transcriptions/calculate';

for (const kind of databaseKinds) {
  const test = suite(`price calculation (${kind})`);
  const harness = useHarness(test, kind);
  const fresh = () => harness().provision({ balance: 1250.5 });

  const quote = async (account: Provisioned, json: unknown) => {
    const reply = await harness().v3(account.apiKey, 'POST', '/v3/billing/calculate', { json });
    assert.is(reply.status, 200, reply.text);
    return reply.body;
  };
  const v2 = async (account: Provisioned, json: unknown) =>
    harness().signed(account.signer, 'POST', CALCULATE, { json });

  test('v3 transcription: minutes rounded up, queue by default, lightning on request', async () => {
    const account = await fresh();
    const lightning = await quote(account, { type: 'transcription', duration_seconds: 125.4, priority: 'lightning' });
    assert.equal(
      { amount: lightning.amount, currency: lightning.currency, minutes: lightning.minutes_billed },
      { amount: 6, currency: 'RUB', minutes: 3 },
    );
    assert.equal(lightning.breakdown, [
      { item: 'transcribe_lightning', quantity: 3, unit: 'minute', unit_price: 2, amount: 6 },
    ]);
    const { usage_current_month: usage, ...balance } = lightning.balance;
    assert.equal(balance, {
      balance: 1250.5,
      currency: 'RUB',
      credit_limit: 0,
      overdraft_enabled: false,
      overdraft_used: 0,
      available_credit: 1250.5,
      tariff_plan: 'standard',
    });
    assert.equal(usage, { minutes_lightning: 0, minutes_queue: 0, total_cost: 0 });

    const cases: [number, number][] = [
      [60, 1],
      [60.001, 2],
      [0.5, 1],
      [3600, 60],
    ];
    for (const [seconds, minutes] of cases) {
      const queue = await quote(account, { type: 'transcription', duration_seconds: seconds });
      assert.equal(
        [queue.minutes_billed, queue.amount, queue.breakdown[0].item],
        [minutes, minutes, 'transcribe_queue'],
      );
    }
  });

  test('v3 stream, chat and embedding prices', async () => {
    const account = await fresh();
    const stream = await quote(account, { type: 'stream', duration_seconds: 61 });
    assert.equal([stream.amount, stream.minutes_billed, stream.breakdown[0].item], [4, 2, 'transcribe_lightning']);

    const chat = await quote(account, {
      type: 'chat',
      model: 'service-pro',
      prompt_tokens: 1200,
      completion_tokens: 300,
    });
    assert.is(chat.amount, 1.05);
    assert.not.ok('minutes_billed' in chat);
    assert.equal(chat.breakdown, [
      { item: 'service-pro_prompt_tokens', quantity: 1200, unit: 'token', unit_price: 0.0005, amount: 0.6 },
      { item: 'service-pro_completion_tokens', quantity: 300, unit: 'token', unit_price: 0.0015, amount: 0.45 },
    ]);
    const mini = await quote(account, {
      type: 'chat',
      model: 'service-mini',
      prompt_tokens: 0,
      completion_tokens: 1000,
    });
    assert.is(mini.amount, 0.3);

    const embedding = await quote(account, { type: 'embedding', tokens: 25_000 });
    assert.equal(embedding.breakdown, [
      { item: 'service-embedding_tokens', quantity: 25_000, unit: 'token', unit_price: 0.00002, amount: 0.5 },
    ]);
    assert.is(embedding.amount, 0.5);
  });

  test('v3: calculating writes nothing to the ledger and reserves nothing', async () => {
    const h = harness();
    const account = await fresh();
    await quote(account, { type: 'transcription', duration_seconds: 7200, priority: 'lightning' });
    const entries = await h.db('ledger_entries').where({ account_id: account.id });
    assert.equal(
      entries.map((e) => e.kind),
      ['topup'],
    );
    assert.equal(await h.db('reservations').where({ account_id: account.id }), []);
    const row = await h.db('accounts').where({ id: account.id }).first();
    assert.equal([Number(row.balance_minor), Number(row.reserved_minor)], [125_050, 0]);
  });

  test('v3: invalid requests are 400 with param', async () => {
    const h = harness();
    const account = await fresh();
    const send = (json: unknown) => h.v3(account.apiKey, 'POST', '/v3/billing/calculate', { json });
    const cases: [unknown, string, string][] = [
      [{ type: 'transcription', duration_seconds: 0 }, 'invalid_parameter', 'duration_seconds'],
      [{ type: 'transcription', duration_seconds: -5 }, 'invalid_parameter', 'duration_seconds'],
      [{ type: 'transcription' }, 'missing_parameter', 'duration_seconds'],
      [{ type: 'transcription', duration_seconds: 60, priority: 'urgent' }, 'invalid_parameter', 'priority'],
    ];
    for (const [json, code, param] of cases) {
      const reply = await send(json);
      assert.is(reply.status, 400, `${JSON.stringify(json)}: ${reply.text}`);
      assert.equal(
        [reply.body.error.type, reply.body.error.code, reply.body.error.param],
        ['invalid_request_error', code, param],
      );
    }
    const unknownType = await send({ type: 'translation', duration_seconds: 60 });
    assert.is(unknownType.status, 400, unknownType.text);
    assert.is(unknownType.body.error.type, 'invalid_request_error');
  });

  test('v3: huge numbers (1e308, and 1e309 which JSON.parse reads as Infinity) are 400 with param', async () => {
    const h = harness();
    const account = await fresh();
    const cases: [string, string][] = [
      ['{"type":"transcription","duration_seconds":1e309}', 'duration_seconds'],
      ['{"type":"transcription","duration_seconds":1e308}', 'duration_seconds'],
      ['{"type":"stream","duration_seconds":1e309}', 'duration_seconds'],
      ['{"type":"chat","model":"service-mini","prompt_tokens":1e308,"completion_tokens":1}', 'prompt_tokens'],
      ['{"type":"embedding","tokens":1e309}', 'tokens'],
    ];
    for (const [body, param] of cases) {
      const reply = await h.v3(account.apiKey, 'POST', '/v3/billing/calculate', {
        body,
        headers: { 'Content-Type': 'application/json' },
      });
      assert.is(reply.status, 400, `${body}: ${reply.text}`);
      assert.equal([reply.body.error.code, reply.body.error.param], ['invalid_parameter', param], body);
    }
    // The largest admitted duration still prices to a finite whole amount.
    const longest = await quote(account, { type: 'transcription', duration_seconds: 86400, priority: 'lightning' });
    assert.equal([longest.minutes_billed, Number.isFinite(longest.amount)], [1440, true]);
  });

  test('v2: a file_size over 1 TiB is 400 naming errors.file_size', async () => {
    const account = await fresh();
    const reply = await harness().signed(account.signer, 'POST', CALCULATE, {
      body: '{"priority":"queue","duration":"01:00","file_size":1e309}',
      headers: { 'Content-Type': 'application/json' },
    });
    assert.is(reply.status, 400, reply.text);
    assert.equal([reply.body.error, Object.keys(reply.body.errors)], ['VALIDATION_ERROR', ['file_size']]);
  });

  test('v2: MM:SS is priced by started minute and the file fields are echoed', async () => {
    const account = await fresh();
    const minimal = await v2(account, { priority: 'queue', duration: '45:00' });
    assert.is(minimal.status, 200, minimal.text);
    const { balance, ...rest } = minimal.body;
    assert.equal(rest, { durationSeconds: 2700, durationMinutes: 45, minutesBilled: 45, cost: 45 });
    assert.is(balance.balance, 1250.5);
    assert.is(balance.available_credit, 1250.5);

    const withFile = await v2(account, {
      priority: 'lightning',
      duration: '02:05',
      filename: 'interview.mp3',
      file_size: 2_048_576,
    });
    assert.is(withFile.status, 200, withFile.text);
    const echoed = { ...withFile.body };
    delete echoed.balance;
    assert.equal(echoed, {
      durationSeconds: 125,
      durationMinutes: 2.08,
      minutesBilled: 3,
      cost: 6,
      filename: 'interview.mp3',
      fileSize: 2_048_576,
    });

    for (const [duration, seconds, minutes] of [
      ['0:01', 1, 1],
      ['1:00', 60, 1],
      ['120:59', 7259, 121],
      ['9999:59', 599_999, 10_000],
    ] as const) {
      const reply = await v2(account, { priority: 'queue', duration });
      assert.is(reply.status, 200, `${duration}: ${reply.text}`);
      assert.equal(
        [reply.body.durationSeconds, reply.body.minutesBilled, reply.body.cost],
        [seconds, minutes, minutes],
      );
    }
  });

  test('v2: bad durations are 400 VALIDATION_ERROR naming errors.duration', async () => {
    const h = harness();
    let account = await fresh();
    const bad = [
      '0:00',
      '00:00',
      '1:5',
      '1:60',
      '90',
      ':30',
      'ab:cd',
      '',
      '12345:00',
      '-1:00',
      ' 1:00',
      '1:00:00',
      '1.5',
    ];
    for (const [i, duration] of bad.entries()) {
      if (i % 9 === 8) account = await fresh(); // stay under the per-account rate limit
      const reply = await h.signed(account.signer, 'POST', CALCULATE, { json: { priority: 'queue', duration } });
      assert.is(reply.status, 400, `${JSON.stringify(duration)}: ${reply.text}`);
      assert.is(reply.body.error, 'VALIDATION_ERROR');
      assert.equal(Object.keys(reply.body.errors), ['duration'], JSON.stringify(reply.body));
      assert.is(reply.body.errors.duration.length, 1);
      assert.is(reply.body.errors.duration[0], reply.body.message);
      // Zero is outside the contract's pattern too, so it is told the way every malformed duration is.
      if (duration === '0:00' || duration === '00:00') assert.match(reply.body.message, /^duration must match pattern/);
    }
  });

  test('v2: other invalid bodies name their field', async () => {
    const h = harness();
    const account = await fresh();
    const cases: [unknown, string][] = [
      [{ priority: 'queue' }, 'duration'],
      [{ duration: '01:00' }, 'priority'],
      [{ priority: 'fast', duration: '01:00' }, 'priority'],
      [{ priority: 'queue', duration: 90 }, 'duration'],
      [{ priority: 'queue', duration: '01:00', colour: 'red' }, 'colour'],
      [{ priority: 'queue', duration: '01:00', file_size: -1 }, 'file_size'],
    ];
    for (const [json, field] of cases) {
      const reply = await h.signed(account.signer, 'POST', CALCULATE, { json });
      assert.is(reply.status, 400, `${JSON.stringify(json)}: ${reply.text}`);
      assert.is(reply.body.error, 'VALIDATION_ERROR');
      assert.equal(Object.keys(reply.body.errors), [field], JSON.stringify(reply.body));
    }
    const noBody = await h.signed(account.signer, 'POST', CALCULATE, {
      body: '',
      headers: { 'Content-Type': 'application/json' },
    });
    assert.is(noBody.status, 400, noBody.text);
    assert.equal(noBody.body, {
      error: 'VALIDATION_ERROR',
      message: 'body is required.',
      errors: { body: ['body is required.'] },
    });
  });

  test.run();
}
