// Reads that run on nearly every request (the task status, the credential behind a Bearer key) as fixed SQL text,
// so no query is built per call. On SQLite they go straight to a prepared statement on a second, read-only
// connection to the same file: knex's query builder, runner and pool cost ≈ 4 × the read itself (≈ 80 µs against
// ≈ 18 µs for a status row on this machine). The read-only connection sees exactly what is committed (WAL gives each
// read a snapshot), never the uncommitted part of a transaction running on knex's connection. On PostgreSQL the
// fixed text goes through `db.raw` (the driver's own protocol is the cost there, not query building).
import BetterSqlite3 from 'better-sqlite3';
import type { Database } from './database-handle.ts';

/** A read of at most one row: the SQL uses `?` placeholders, one per argument. */
export type HotRead<Row> = (...args: unknown[]) => Promise<Row | undefined>;

interface ReadConnection {
  prepare(sql: string): { get(...args: unknown[]): unknown };
  close(): void;
}

const readConnections = new WeakMap<Database, () => ReadConnection>();

/**
 * Gives `db` a read-only companion connection to the SQLite file at `filename`, opened on first use and closed when
 * `db` is destroyed. Called by openDatabase; a knex instance made elsewhere reads through knex.
 */
export function attachReadConnection(db: Database, filename: string): void {
  let connection: ReadConnection | undefined;
  readConnections.set(db, () => {
    if (!connection) {
      const opened = new BetterSqlite3(filename, { readonly: true, fileMustExist: true });
      opened.pragma('busy_timeout = 5000');
      connection = opened;
    }
    return connection;
  });
  // knex's `destroy` is read-only; it ends by destroying its client, which is where this connection is closed too.
  const client = db.client as { destroy: (callback?: unknown) => unknown };
  const destroyClient = client.destroy.bind(client);
  client.destroy = (callback?: unknown) => {
    connection?.close();
    connection = undefined;
    return destroyClient(callback);
  };
}

/** A one-row read of fixed SQL, prepared once (on first use, when the schema is there) where the database allows. */
export function hotRead<Row>(db: Database, sql: string): HotRead<Row> {
  const connect = readConnections.get(db);
  if (!connect) {
    return async (...args) => {
      const result = (await db.raw(sql, args as never[])) as Row[] | { rows: Row[] };
      return (Array.isArray(result) ? result : result.rows)[0];
    };
  }
  let statement: { get(...args: unknown[]): unknown } | undefined;
  return async (...args) => {
    statement ??= connect().prepare(sql);
    return statement.get(...args) as Row | undefined;
  };
}
