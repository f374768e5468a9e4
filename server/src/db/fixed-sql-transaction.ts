// Transactions of fixed SQL text, for the writes on a request's path (the ledger's reservation and settlement of every
// chat, embedding, transcription and stream call): no query is built per call. On SQLite the statements run on knex's
// own connection, taken from its pool (which holds exactly one, so nothing else of knex runs meanwhile), each prepared
// once per text: a reservation took 0.045 ms this way against 0.5–0.67 ms through knex's builder, runner and
// transaction (medians of 300, 2026-11-27). That time is the event loop's, and a chat call's reservation runs while
// its model evaluates the prompt on two cores: it delayed the first token by about as long as it ran. On PostgreSQL
// the same text goes through a knex transaction and `trx.raw` (there the driver's round trips are the cost).
import type { Database } from './database.ts';
import { databaseKind } from './database.ts';

/** The statements of one transaction; SQL text with `?` placeholders, one per argument. */
export interface FixedSql {
  /** Runs a write; resolves with the number of rows it changed. */
  run(sql: string, ...args: unknown[]): Promise<number>;
  /** Reads at most one row. */
  get<Row>(sql: string, ...args: unknown[]): Promise<Row | undefined>;
}

/**
 * Runs `work` in one transaction: committed when it resolves, rolled back when it throws. `work` must do nothing but
 * run its statements: on SQLite it holds the database's only connection until it ends.
 */
export type FixedSqlTransaction = <T>(work: (sql: FixedSql) => Promise<T>) => Promise<T>;

interface SqliteStatement {
  run(...args: unknown[]): { changes: number };
  get(...args: unknown[]): unknown;
}

interface SqliteConnection {
  prepare(sql: string): SqliteStatement;
  inTransaction: boolean;
}

/** BEGIN, COMMIT and ROLLBACK of each connection, prepared once (the statement cache keeps data statements only). */
const controlStatements = new WeakMap<
  SqliteConnection,
  { begin: SqliteStatement; commit: SqliteStatement; rollback: SqliteStatement }
>();

function controlOf(connection: SqliteConnection) {
  let control = controlStatements.get(connection);
  if (!control) {
    control = {
      // IMMEDIATE takes the write lock at once: a deferred transaction that reads first could find the lock taken
      // by another process when it comes to write, and SQLite then fails it instead of waiting.
      begin: connection.prepare('BEGIN IMMEDIATE'),
      commit: connection.prepare('COMMIT'),
      rollback: connection.prepare('ROLLBACK'),
    };
    controlStatements.set(connection, control);
  }
  return control;
}

function sqliteTransaction(db: Database): FixedSqlTransaction {
  return async (work) => {
    const connection = (await db.client.acquireConnection()) as SqliteConnection;
    try {
      const sql: FixedSql = {
        run: async (text, ...args) => connection.prepare(text).run(...args).changes,
        get: async <Row>(text: string, ...args: unknown[]) => connection.prepare(text).get(...args) as Row | undefined,
      };
      const { begin, commit, rollback } = controlOf(connection);
      begin.run();
      try {
        const result = await work(sql);
        commit.run();
        return result;
      } catch (error) {
        // A failed COMMIT or a statement error SQLite rolled back itself leaves no transaction to roll back.
        if (connection.inTransaction) rollback.run();
        throw error;
      }
    } finally {
      await db.client.releaseConnection(connection);
    }
  };
}

function postgresTransaction(db: Database): FixedSqlTransaction {
  return (work) =>
    db.transaction((trx) =>
      work({
        run: async (text, ...args) => ((await trx.raw(text, args as never[])) as { rowCount: number }).rowCount,
        get: async <Row>(text: string, ...args: unknown[]) =>
          ((await trx.raw(text, args as never[])) as { rows: Row[] }).rows[0],
      }),
    );
}

export function fixedSqlTransaction(db: Database): FixedSqlTransaction {
  return databaseKind(db) === 'postgres' ? postgresTransaction(db) : sqliteTransaction(db);
}
