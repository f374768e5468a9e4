// A stream session whose server process dies (kill -9: no close, no release) is settled by another instance on the
// same database once its lease is no longer renewed: the reservation is released, nothing is charged, the session ends
// `dropped` (lease_expired) and its task `failed`. A live session's lease, renewed by its process, is left alone by
// that other instance's sweeper. Real processes: the first server is `node --import tsx server/src/main.ts`, the
// second an app in this process; a real database of each kind, the real engine and a real WebSocket.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { sendPacedAudio } from '../../../client/src/send-paced-audio.ts';
import { createClient } from '../../../generated/client/client/index.ts';
import { freePort, startProcess, type Started } from '../../../test/support/processes.ts';
import { createApp, type App } from '../app.ts';
import { loadConfig } from '../config.ts';
import { GOFORWARD_RAW } from '../test-support/audio.ts';
import { connectCheckedStream } from '../test-support/checked-stream.ts';
import { ADMIN_TOKEN, databaseKinds, freshDatabase } from '../test-support/test-databases.ts';

const root = new URL('../../../', import.meta.url).pathname;
/**
 * Renewed every third of it: a lease of 5 s leaves the live process over 3 s of slack for a renewal, so the test holds
 * while other test files load the machine.
 */
const LEASE_MS = 5000;
const PRICE = 200; // transcribe_lightning, minor units per minute (the default price table)

for (const kind of databaseKinds) {
  const test = suite(`stream session of a killed server (${kind})`);

  test('another instance releases its reservation once the lease expires; nothing is charged', async () => {
    const database = await freshDatabase(kind);
    const port = await freePort();
    const env = {
      ...database.env,
      PORT: String(port),
      NODE_ENV: 'test',
      LOG_LEVEL: 'info',
      SCRIBE_ADMIN_TOKEN: ADMIN_TOKEN,
      SCRIBE_SECRET_KEY: randomBytes(32).toString('hex'),
      SCRIBE_STREAM_LEASE_MS: String(LEASE_MS),
      SCRIBE_STREAM_SWEEP_MS: '200',
      SCRIBE_STREAM_WORKERS: '1',
      SCRIBE_WORKERS: '1',
      SCRIBE_RATE_LIMIT_RPS: '1000',
    };
    let server: Started | undefined;
    let other: App | undefined;
    try {
      server = await startProcess(
        process.execPath,
        ['--import', 'tsx', join(root, 'server/src/main.ts')],
        /Scribe is listening/,
        60_000,
        env,
      );
      // The second instance: same database, its own sweeper (every 200 ms), no listener needed.
      other = await createApp(loadConfig({ ...env, PORT: '0' }));
      const db = other.db;
      const base = `http://127.0.0.1:${port}`;
      const account = (await fetch(`${base}/admin/accounts`, {
        method: 'POST',
        headers: { 'X-Admin-Token': ADMIN_TOKEN, 'Content-Type': 'application/json' },
        body: JSON.stringify({ balance: 100 }),
      }).then((r) => r.json())) as { account: { id: string }; api_key: string };
      const money = async () => {
        const row = await db('accounts').where({ id: account.account.id }).first();
        return { balance: Number(row.balance_minor), reserved: Number(row.reserved_minor) };
      };
      const client = await connectCheckedStream(createClient({ baseUrl: base, auth: () => account.api_key }), {
        session: { language: 'en' },
      });
      const session = () => db('stream_sessions').where({ id: client.sessionId }).first();
      await sendPacedAudio(client, readFileSync(GOFORWARD_RAW), { leadMs: Infinity });

      // Alive for longer than a lease: its process renews it, the other instance's sweeper leaves it alone.
      for (let i = 0; i < 3; i++) {
        await sleep(LEASE_MS / 2);
        client.keepalive();
      }
      assert.is((await session()).status, 'connected');
      assert.is((await money()).reserved, 10 * PRICE);

      server.process.kill('SIGKILL');
      await new Promise((resolve) => server!.process.once('exit', resolve));
      assert.is((await client.closed).code, 1006, 'the connection was lost, not closed');
      const killedAt = Date.now();
      let row = await session();
      while (row.status === 'connected') {
        assert.ok(Date.now() - killedAt < LEASE_MS + 10_000, 'swept within the lease and a few sweeps');
        await sleep(100);
        row = await session();
      }
      assert.equal([row.status, row.end_reason], ['dropped', 'lease_expired']);
      // The sweeper ends the session, then releases its reservation (two steps): wait for the second too.
      let held = await money();
      while (held.reserved !== 0 && Date.now() - killedAt < LEASE_MS + 20_000) {
        await sleep(100);
        held = await money();
      }
      assert.equal(held, { balance: 100 * 100, reserved: 0 });
      const reservation = await db('reservations')
        .where({ reference: `stream:${client.sessionId}` })
        .first();
      assert.is(reservation.status, 'released');
      const captures = await db('ledger_entries').where({ account_id: account.account.id, kind: 'capture' });
      assert.is(captures.length, 0, 'nothing charged');
      assert.is((await db('transcriptions').where({ id: client.sessionId }).first()).status, 'failed');
      assert.equal(client.violations, []);
    } finally {
      await server?.stop();
      await other?.close();
      await database.drop();
    }
  });

  test.run();
}
