// What a stopped process leaves half-done in a stream session is finished by the sweeper. Ending a session (one
// conditional UPDATE) and settling its reservation are separate steps; a crash between them leaves an ended session
// whose reservation is still held and whose task row still says `processing`. The sweep releases what an expired or
// dropped session held (nothing charged), captures exactly what a completed one's row says it cost, finishes the task
// rows, and a second sweep changes nothing (never charged twice). The crash is reproduced by writing the ended state
// the way the first step does and not taking the second.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import pino from 'pino';
import type { StreamAppliedConfig } from '../../../generated/client/types.gen.ts';
import type { AccountRow } from '../accounts/store.ts';
import { createLedger } from '../billing/ledger.ts';
import { loadConfig } from '../config.ts';
import { databaseKinds, useHarness, type Harness } from '../test-support/harness.ts';
import { createStreamService, type StreamService } from './session-service.ts';

const applied: StreamAppliedConfig = {
  language: 'en',
  diarization: false,
  sample_rate: 16000,
  encoding: 'pcm_s16le',
  interim_results: true,
  word_timestamps: false,
  endpointing: 300,
};

for (const kind of databaseKinds) {
  const test = suite(`stream sessions a stopped process left half-done (${kind})`);
  const harness = useHarness(test, kind);

  function service(h: Harness): StreamService {
    const config = loadConfig({ NODE_ENV: 'test' });
    return createStreamService({
      db: h.db,
      ledger: createLedger(h.db),
      prices: config.prices,
      // A sweeper of this test's own, run by hand; the server's runs every 10 s and would find the same rows.
      config: config.streaming,
      ticketTtlSeconds: 60,
      engineAvailable: true,
      now: Date.now,
      logger: pino({ level: 'silent' }),
    });
  }

  async function account(h: Harness, id: string) {
    const row = (await h.db<AccountRow>('accounts').where({ id }).first())!;
    return { row, balance: Number(row.balance_minor), reserved: Number(row.reserved_minor) };
  }

  /** A session created and connected, its task row written: what a live stream has before it ends. */
  async function connected(h: Harness, streams: StreamService, accountId: string) {
    const created = await streams.create((await account(h, accountId)).row, 'http://127.0.0.1');
    const ticket = new URL(created.stream_url).searchParams.get('ticket')!;
    const claimed = await streams.claim(ticket);
    assert.ok(claimed.ok, 'the ticket was claimed');
    if (!claimed.ok) throw new Error('unreachable');
    await streams.start(claimed.session, applied);
    return claimed.session;
  }

  const reservationOf = async (h: Harness, id: string | null) =>
    (await h.db('reservations').where({ id: id! }).first()) as { status: string; amount_minor: number | string };
  const taskOf = async (h: Harness, id: string) =>
    (await h.db('transcriptions').where({ id }).first()) as { status: string; minutes_billed: number | null };

  test('an expired ticket and a dropped session whose release never ran: released, nothing charged', async () => {
    const h = harness();
    const streams = service(h);
    const { id } = await h.provision({ balance: 50 });
    const before = await account(h, id);

    const ticketOnly = await streams.create(before.row, 'http://127.0.0.1');
    const dropped = await connected(h, streams, id);
    assert.ok((await account(h, id)).reserved > 0, 'both sessions hold funds');
    await h.db('stream_sessions').where({ id: ticketOnly.session_id }).update({
      status: 'expired',
      end_reason: 'expired',
      ended_at: new Date().toISOString(),
    });
    await h.db('stream_sessions').where({ id: dropped.id }).update({
      status: 'dropped',
      end_reason: 'client_closed',
      ended_at: new Date().toISOString(),
    });

    assert.is(await streams.sweep(), 2, 'both reservations settled by this sweep');
    const after = await account(h, id);
    assert.is(after.reserved, 0, 'nothing held any more');
    assert.is(after.balance, before.balance, 'nothing charged');
    const ticketReservation = (await h.db('stream_sessions').where({ id: ticketOnly.session_id }).first())
      .reservation_id as string;
    assert.is((await reservationOf(h, ticketReservation)).status, 'released');
    assert.is((await reservationOf(h, dropped.reservation_id)).status, 'released');
    assert.is((await taskOf(h, dropped.id)).status, 'cancelled', 'the client closed it: its task is cancelled');

    assert.is(await streams.sweep(), 0, 'a second sweep finds nothing');
    assert.equal(await account(h, id), after);
  });

  test('a completed session whose capture never ran: charged exactly its cost, once; its task completed', async () => {
    const h = harness();
    const streams = service(h);
    const { id } = await h.provision({ balance: 50 });
    const before = await account(h, id);
    const session = await connected(h, streams, id);
    const cost = 2 * loadConfig({ NODE_ENV: 'test' }).prices.transcribe_lightning;
    await h.db('stream_sessions').where({ id: session.id }).update({
      status: 'completed',
      duration_seconds: 61,
      minutes_billed: 2,
      cost_minor: cost,
      ended_at: new Date().toISOString(),
    });

    assert.is(await streams.sweep(), 1);
    const after = await account(h, id);
    assert.is(after.reserved, 0);
    assert.is(after.balance, before.balance - cost, 'the two minutes the row records, charged');
    assert.is((await reservationOf(h, session.reservation_id)).status, 'captured');
    const task = await taskOf(h, session.id);
    assert.equal([task.status, Number(task.minutes_billed)], ['completed', 2]);

    assert.is(await streams.sweep(), 0);
    assert.equal(await account(h, id), after, 'never charged twice');
  });

  test('a dropped session already released whose task row was left processing: the task fails', async () => {
    const h = harness();
    const streams = service(h);
    const { id } = await h.provision({ balance: 50 });
    const session = await connected(h, streams, id);
    await h.db('stream_sessions').where({ id: session.id }).update({
      status: 'dropped',
      end_reason: 'lease_expired',
      ended_at: new Date().toISOString(),
    });
    await createLedger(h.db).settle(session.reservation_id!, 0);

    assert.is(await streams.sweep(), 0, 'no reservation left to settle');
    assert.is((await taskOf(h, session.id)).status, 'failed');
  });

  test.run();
}
