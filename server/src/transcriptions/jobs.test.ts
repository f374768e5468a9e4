// The job queue's claim order on a fresh SQLite file and a fresh PostgreSQL database: `lightning` before `queue`;
// within a priority the account with the fewest tasks being worked on (a live lease) first, then the oldest task, so
// one account's backlog of queued tasks does not hold every slot before another account's newer task is claimed.
import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { migrateToLatest, openDatabase, type Database } from '../db/database.ts';
import { databaseKinds, freshDatabase } from '../test-support/test-databases.ts';
import { createJobQueue } from './jobs.ts';

for (const kind of databaseKinds) {
  const test = suite(`job claim order (${kind})`);
  let fresh: Awaited<ReturnType<typeof freshDatabase>>;
  let db: Database;

  test.before(async () => {
    fresh = await freshDatabase(kind);
    db = openDatabase({ dataDir: fresh.env.SCRIBE_DATA_DIR!, databaseUrl: fresh.env.DATABASE_URL });
    await migrateToLatest(db);
  });
  test.after(async () => {
    await db?.destroy();
    await fresh?.drop();
  });

  /** A task ready to be claimed, `ageS` seconds old. */
  async function task(account: string, name: string, ageS: number, priority: 'queue' | 'lightning' = 'queue') {
    const id = randomUUID();
    await db('transcriptions').insert({
      id,
      account_id: account,
      status: 'ready',
      mode: 'async',
      api_version: 'v3',
      priority,
      source_type: 'upload',
      filename: `${name}.wav`,
      language: 'en',
      diarization: false,
      progress: 0,
      created_at: new Date(Date.now() - ageS * 1000).toISOString(),
    });
    return id;
  }

  test('an account’s backlog takes turns with a newer account’s task; lightning still goes first', async () => {
    const at = new Date().toISOString();
    const [a, b] = [randomUUID(), randomUUID()];
    for (const id of [a, b]) await db('accounts').insert({ id, currency: 'RUB', created_at: at, updated_at: at });
    const names = new Map<string, string>();
    for (const [account, name, age] of [
      [a, 'a1', 50],
      [a, 'a2', 40],
      [a, 'a3', 30],
      [b, 'b1', 10],
    ] as const) {
      names.set(await task(account, name, age), name);
    }
    const queue = createJobQueue(db, { leaseMs: 60_000 });
    const claimed: string[] = [];
    const claim = async () => {
      const row = await queue.claim('worker-1');
      claimed.push(row ? (names.get(row.id) ?? row.id) : 'none');
    };
    await claim(); // a1: nobody has a task running; the oldest
    await claim(); // b1: a has one running, b none
    names.set(await task(a, 'a-lightning', 0, 'lightning'), 'a-lightning');
    await claim(); // the lightning task, although a has the most running
    await claim();
    await claim();
    await claim();
    assert.equal(claimed, ['a1', 'b1', 'a-lightning', 'a2', 'a3', 'none']);
  });

  test.run();
}
