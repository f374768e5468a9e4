// Hot reads (fixed SQL, prepared once) on a fresh SQLite file and a fresh PostgreSQL database: they return the same
// row as knex's query builder, see every committed write at once (a status poll right after a change), never see a
// transaction's uncommitted writes, and the SQLite companion connection closes with the database. Also that commits
// stay cheap enough for the event loop (`synchronous = NORMAL` under WAL) and survive a reopen.
import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { databaseKinds, freshDatabase } from '../test-support/test-databases.ts';
import { migrateToLatest, openDatabase, type Database } from './database.ts';
import { hotRead } from './hot-reads.ts';

interface Row {
  id: string;
  status: string;
  progress: number;
}

for (const kind of databaseKinds) {
  const test = suite(`hot reads (${kind})`);
  let fresh: Awaited<ReturnType<typeof freshDatabase>>;
  let db: Database;
  let config: { dataDir: string; databaseUrl: string | undefined };
  const account = randomUUID();
  const id = randomUUID();

  test.before(async () => {
    fresh = await freshDatabase(kind);
    config = { dataDir: fresh.env.SCRIBE_DATA_DIR!, databaseUrl: fresh.env.DATABASE_URL };
    db = openDatabase(config);
    await migrateToLatest(db);
    const at = new Date().toISOString();
    await db('accounts').insert({ id: account, currency: 'RUB', created_at: at, updated_at: at });
    await db('transcriptions').insert({
      id,
      account_id: account,
      status: 'processing',
      mode: 'async',
      api_version: 'v3',
      priority: 'queue',
      source_type: 'upload',
      filename: 'a.wav',
      language: 'en',
      diarization: false,
      progress: 10,
      created_at: at,
    });
  });

  test.after(async () => {
    await db?.destroy();
    await fresh?.drop();
  });

  const find = () => hotRead<Row>(db, 'SELECT * FROM transcriptions WHERE account_id = ? AND id = ? LIMIT 1');

  test('returns the row knex returns, and undefined for no row', async () => {
    const read = find();
    const viaKnex = await db('transcriptions').where({ account_id: account, id }).first();
    assert.equal(await read(account, id), viaKnex);
    assert.is(await read(account, randomUUID()), undefined);
  });

  test('sees a committed change at once, and never a transaction uncommitted', async () => {
    const read = find();
    await db('transcriptions').where({ id }).update({ progress: 55 });
    assert.is(Number((await read(account, id))!.progress), 55);
    await db
      .transaction(async (trx) => {
        await trx('transcriptions').where({ id }).update({ status: 'completed', progress: 100 });
        if (kind === 'sqlite') {
          // The companion connection reads the last committed state while knex's connection is mid-transaction.
          const during = (await read(account, id))!;
          assert.is(during.status, 'processing');
          assert.is(Number(during.progress), 55);
        }
        throw new Error('roll back');
      })
      .catch((error: Error) => assert.is(error.message, 'roll back'));
    assert.is((await read(account, id))!.status, 'processing');
  });

  if (kind === 'sqlite') {
    test('WAL with synchronous = NORMAL; commits are sub-millisecond and survive a reopen', async () => {
      const [journal] = (await db.raw('PRAGMA journal_mode')) as { journal_mode: string }[];
      const [sync] = (await db.raw('PRAGMA synchronous')) as { synchronous: number }[];
      assert.is(journal?.journal_mode, 'wal');
      assert.is(sync?.synchronous, 1, 'NORMAL');
      const started = performance.now();
      for (let i = 0; i < 200; i++)
        await db('transcriptions')
          .where({ id })
          .update({ progress: i % 100 });
      const perCommit = (performance.now() - started) / 200;
      assert.ok(perCommit < 2, `${perCommit.toFixed(2)} ms per commit`);
      await db('transcriptions').where({ id }).update({ progress: 77 });
      await db.destroy();
      db = openDatabase(config);
      assert.is(Number((await find()(account, id))!.progress), 77);
    });

    test('the companion connection closes with the database', async () => {
      const other = openDatabase(config);
      const read = hotRead<Row>(other, 'SELECT * FROM transcriptions WHERE id = ?');
      assert.ok(await read(id));
      await other.destroy();
      try {
        await read(id);
        assert.unreachable('a read after destroy');
      } catch (error) {
        assert.match((error as Error).message, /not open/);
      }
    });
  }

  test.run();
}
