// Fixed-SQL transactions on a fresh SQLite file and a fresh PostgreSQL database: what `work` writes is committed when
// it resolves and gone when it throws (also a statement SQLite itself refused), the row counts are the rows changed,
// and on SQLite a knex query made meanwhile waits for the commit instead of running inside the transaction.
import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { databaseKinds, freshDatabase } from '../test-support/test-databases.ts';
import { migrateToLatest, openDatabase, type Database } from './database.ts';
import { fixedSqlTransaction, type FixedSql, type FixedSqlTransaction } from './fixed-sql-transaction.ts';

const INSERT = 'INSERT INTO accounts (id, currency, balance_minor, created_at, updated_at) VALUES (?, ?, ?, ?, ?)';
const ADD = 'UPDATE accounts SET balance_minor = balance_minor + ? WHERE id = ?';

for (const kind of databaseKinds) {
  const test = suite(`fixed-SQL transactions (${kind})`);
  let fresh: Awaited<ReturnType<typeof freshDatabase>>;
  let db: Database;
  let transaction: FixedSqlTransaction;

  test.before(async () => {
    fresh = await freshDatabase(kind);
    db = openDatabase({ dataDir: fresh.env.SCRIBE_DATA_DIR!, databaseUrl: fresh.env.DATABASE_URL });
    await migrateToLatest(db);
    transaction = fixedSqlTransaction(db);
  });
  test.after(async () => {
    await db?.destroy();
    await fresh?.drop();
  });

  const balanceOf = async (id: string) => {
    const row = await db('accounts').where({ id }).first('balance_minor');
    return row ? Number(row.balance_minor) : undefined;
  };
  const insertAccount = (sql: FixedSql, id: string) =>
    sql.run(INSERT, id, 'RUB', 100, new Date().toISOString(), new Date().toISOString());

  test('resolved work is committed; the counts are the rows changed and `get` reads inside the transaction', async () => {
    const id = randomUUID();
    const seen = await transaction(async (sql) => {
      const inserted = await insertAccount(sql, id);
      const changed = await sql.run(ADD, 5, id);
      const missing = await sql.run(ADD, 5, randomUUID());
      const row = await sql.get<{ balance_minor: number | string }>(
        'SELECT balance_minor FROM accounts WHERE id = ?',
        id,
      );
      return { inserted, changed, missing, balance: Number(row!.balance_minor) };
    });
    assert.equal(seen, { inserted: 1, changed: 1, missing: 0, balance: 105 });
    assert.is(await balanceOf(id), 105);
  });

  test('work that throws leaves nothing behind, and the error is the caller’s', async () => {
    const id = randomUUID();
    const refusal = new Error('refused');
    const caught = await transaction(async (sql) => {
      await insertAccount(sql, id);
      throw refusal;
    }).catch((error: unknown) => error);
    assert.is(caught, refusal);
    assert.is(await balanceOf(id), undefined);
  });

  test('a statement the database refuses rolls the earlier ones back; the next transaction runs', async () => {
    const id = randomUUID();
    const caught = await transaction(async (sql) => {
      await insertAccount(sql, id);
      await insertAccount(sql, id); // the same primary key again
    }).catch((error: unknown) => error as Error);
    assert.match(String(caught), /unique|UNIQUE|duplicate/);
    assert.is(await balanceOf(id), undefined);
    const next = randomUUID();
    await transaction(async (sql) => {
      await insertAccount(sql, next);
    });
    assert.is(await balanceOf(next), 100);
  });

  if (kind === 'sqlite') {
    test('sqlite: a knex query made during the transaction runs after its commit, not inside it', async () => {
      const id = randomUUID();
      let meanwhile: Promise<number | undefined> | undefined;
      await transaction(async (sql) => {
        await insertAccount(sql, id);
        meanwhile = balanceOf(id);
        // Give the knex query every chance to run now, were it not waiting for the connection.
        await new Promise((resolve) => setTimeout(resolve, 20));
        await sql.run(ADD, 1, id);
      });
      assert.is(await meanwhile, 101);
    });
  }

  test.run();
}
