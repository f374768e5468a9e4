// Migrations up → down → up on a fresh SQLite file and a fresh PostgreSQL database: every table appears, disappears
// completely and comes back usable; migrating twice is a no-op.
import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { databaseKinds, freshDatabase } from '../test-support/test-databases.ts';
import { migrateToLatest, openDatabase, rollbackAll, type Database } from './database.ts';
import { migrationSource } from './migrations.ts';

const TABLES = [
  'accounts',
  'api_keys',
  'key_pairs',
  'reservations',
  'ledger_entries',
  'idempotency_keys',
  'webhooks',
  'transcriptions',
  'rate_limits',
  'webhook_deliveries',
  'webhook_attempts',
  'stream_sessions',
  'media_chunks',
  'server_settings',
  'transcript_chats',
  'signature_nonces',
  'admin_idempotency_keys',
];

/** Every migration, in order (the list in db/migrations.ts). */
const ALL = [
  '20261121210000_core',
  '20261121220000_rate_limits',
  '20261122000000_transcription_jobs',
  '20261122010000_webhook_deliveries',
  '20261122020000_v2_analysis',
  '20261122030000_stream_sessions',
  '20261123010000_transcript_chats',
  '20261125000000_media_chunks',
  '20261125010000_server_settings',
  '20261128150000_signature_nonces',
  '20261207010000_admin_idempotency_keys',
];

async function userTables(db: Database, kind: string): Promise<string[]> {
  const rows =
    kind === 'postgres'
      ? await db('information_schema.tables').where({ table_schema: 'public' }).select({ name: 'table_name' })
      : await db('sqlite_master').where({ type: 'table' }).whereNot('name', 'like', 'sqlite_%').select('name');
  return (rows as { name: string }[])
    .map((r) => r.name)
    .filter((name) => !name.startsWith('knex_migrations'))
    .sort();
}

async function appliedMigrations(db: Database): Promise<string[]> {
  const [completed] = (await db.migrate.list({ migrationSource })) as [{ name: string }[], unknown];
  return completed.map((m) => m.name);
}

/** Writes and reads back through every foreign key, so the recreated schema is known to work. */
async function exercise(db: Database): Promise<void> {
  const account = randomUUID();
  const at = new Date().toISOString();
  await db('accounts').insert({ id: account, currency: 'RUB', created_at: at, updated_at: at });
  await db('api_keys').insert({
    id: randomUUID(),
    account_id: account,
    prefix: 'sk_live_abcdefgh',
    secret_hash: 'x',
    created_at: at,
  });
  await db('ledger_entries').insert({
    id: randomUUID(),
    account_id: account,
    kind: 'topup',
    amount_minor: 100,
    balance_after_minor: 100,
    created_at: at,
  });
  const row = await db('accounts').where({ id: account }).first();
  assert.is(Number(row.balance_minor), 0);
  assert.ok(row.blocked === false || row.blocked === 0, 'blocked defaults to false');
  assert.is(row.tariff_plan, 'standard');
  const entries = await db('ledger_entries').where({ account_id: account });
  assert.is(entries.length, 1);
}

for (const kind of databaseKinds) {
  const test = suite(`migrations (${kind})`);

  test('up → down → up', async () => {
    const database = await freshDatabase(kind);
    const db = openDatabase({ databaseUrl: database.env.DATABASE_URL, dataDir: database.env.SCRIBE_DATA_DIR! });
    try {
      assert.equal(await userTables(db, kind), []);
      await migrateToLatest(db);
      assert.equal(await userTables(db, kind), [...TABLES].sort());
      assert.equal(await appliedMigrations(db), ALL);
      await exercise(db);

      await rollbackAll(db);
      assert.equal(await userTables(db, kind), [], 'tables left after rolling back everything');
      assert.equal(await appliedMigrations(db), []);

      await migrateToLatest(db);
      assert.equal(await userTables(db, kind), [...TABLES].sort());
      assert.equal(await appliedMigrations(db), ALL);
      assert.equal(await db('accounts'), [], 'data survived a rollback');
      await exercise(db);

      // Migrating an up-to-date database changes nothing.
      await migrateToLatest(db);
      assert.is((await db('accounts')).length, 1);
      assert.equal(await appliedMigrations(db), ALL);
    } finally {
      await db.destroy();
      await database.drop();
    }
  });

  test('a foreign key holds: a ledger entry of an unknown account is refused', async () => {
    const database = await freshDatabase(kind);
    const db = openDatabase({ databaseUrl: database.env.DATABASE_URL, dataDir: database.env.SCRIBE_DATA_DIR! });
    try {
      await migrateToLatest(db);
      let refused = false;
      try {
        await db('ledger_entries').insert({
          id: randomUUID(),
          account_id: randomUUID(),
          kind: 'topup',
          amount_minor: 1,
          balance_after_minor: 1,
          created_at: new Date().toISOString(),
        });
      } catch {
        refused = true;
      }
      assert.ok(refused, 'the insert was accepted');
    } finally {
      await db.destroy();
      await database.drop();
    }
  });

  test.run();
}
