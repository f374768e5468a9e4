// Fresh migrated databases: each holds every migration (the app finds nothing to apply), each is its own copy (a row
// written in one is not in another), and a plain fresh database stays empty for the tests of migrating.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { loadConfig } from '../config.ts';
import { migrateToLatest, openDatabase } from '../db/database.ts';
import { migrationSource } from '../db/migrations.ts';
import { databaseKinds, freshDatabase } from './test-databases.ts';

const test = suite('migrated test databases');

async function withDatabase<T>(env: Record<string, string>, use: (db: ReturnType<typeof openDatabase>) => Promise<T>) {
  const db = openDatabase(
    loadConfig({
      NODE_ENV: 'test',
      SCRIBE_SECRET_KEY: '32fd31f93d7d9c0b48ff82d460c6382da65c41b7afdbf79cfcf8d094dd9f148c',
      ...env,
    }),
  );
  try {
    return await use(db);
  } finally {
    await db.destroy();
  }
}

for (const kind of databaseKinds) {
  test(`${kind}: every migration is applied, and each database is a copy of its own`, async () => {
    const all = await migrationSource.getMigrations([]);
    const [first, second] = await Promise.all([
      freshDatabase(kind, { migrated: true }),
      freshDatabase(kind, { migrated: true }),
    ]);
    try {
      await withDatabase(first.env, async (db) => {
        const applied = (await db('knex_migrations').select('name')).map((row: { name: string }) => row.name);
        assert.equal(applied.sort(), all);
        assert.equal((await migrateToLatest(db))[1], [], 'nothing left to apply');
        await db('server_settings').insert({ name: 'only-in-first', value: 'x' });
      });
      await withDatabase(second.env, async (db) => {
        assert.is((await db('server_settings').where({ name: 'only-in-first' })).length, 0);
        assert.equal((await migrateToLatest(db))[1], []);
      });
    } finally {
      await Promise.all([first.drop(), second.drop()]);
    }
  });

  test(`${kind}: without migrated the database is empty`, async () => {
    const empty = await freshDatabase(kind);
    try {
      await withDatabase(empty.env, async (db) => {
        assert.not.ok(await db.schema.hasTable('knex_migrations'));
      });
    } finally {
      await empty.drop();
    }
  });
}

test.run();
