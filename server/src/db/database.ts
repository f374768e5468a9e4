// The knex instance: embedded SQLite (a file in the data dir, WAL) by default, PostgreSQL when DATABASE_URL is set.
import knex from 'knex';
import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import type { Config, DatabaseTimeouts } from '../config.ts';
import { databaseKind, type Database } from './database-handle.ts';
import { attachReadConnection } from './hot-reads.ts';
import { migrationSource } from './migrations.ts';
import { rememberPreparedStatements } from './statement-cache.ts';

export { databaseKind, type Database, type DatabaseKind } from './database-handle.ts';

/**
 * The database file readable by its owner only (0600): it holds account data, key hashes and sealed secrets. SQLite
 * creates the -wal and -shm files with the database file's permissions, so they follow. A file made by an older
 * version with the umask's 0644 is narrowed too, with its -wal and -shm.
 */
function ownerOnly(filename: string): void {
  closeSync(openSync(filename, 'a', 0o600));
  for (const file of [filename, `${filename}-wal`, `${filename}-shm`]) if (existsSync(file)) chmodSync(file, 0o600);
}

/** The bounds of a handle opened without settings (tools and tests): the settings' defaults. */
const DEFAULT_TIMEOUTS: DatabaseTimeouts = {
  connectTimeoutMs: 3000,
  acquireTimeoutMs: 5000,
  statementTimeoutMs: 15_000,
  sqliteBusyTimeoutMs: 5000,
};

/** How much longer than the server's own statement timeout the client waits for a server that answers nothing. */
const CLIENT_GRACE_MS = 1000;

interface PgClient {
  query: (...args: unknown[]) => unknown;
  connection: { stream: { destroy(): void } };
  __knex__disposed?: unknown;
}

/**
 * A PostgreSQL connection whose query got no answer within the client's read timeout (a frozen or cut-off server)
 * still has that query in flight; handed out again, every later query would queue behind it. It is marked for knex's
 * pool to drop and its socket closed.
 */
function dropOnReadTimeout(client: PgClient): PgClient {
  const query = client.query.bind(client);
  client.query = (...args: unknown[]) => {
    const callback = args[args.length - 1];
    if (typeof callback !== 'function') return query(...args);
    return query(...args.slice(0, -1), (error: Error | null, result: unknown) => {
      if (error?.message === 'Query read timeout') {
        client.__knex__disposed = error;
        client.connection.stream.destroy();
      }
      (callback as (error: Error | null, result: unknown) => void)(error, result);
    });
  };
  return client;
}

export function openDatabase(
  config: Pick<Config, 'databaseUrl' | 'dataDir'> & { database?: DatabaseTimeouts },
): Database {
  const timeouts = config.database ?? DEFAULT_TIMEOUTS;
  if (config.databaseUrl) {
    return knex({
      client: 'pg',
      connection: {
        connectionString: config.databaseUrl,
        connectionTimeoutMillis: timeouts.connectTimeoutMs,
        statement_timeout: timeouts.statementTimeoutMs,
        query_timeout: timeouts.statementTimeoutMs + CLIENT_GRACE_MS,
        keepAlive: true,
      },
      acquireConnectionTimeout: timeouts.acquireTimeoutMs,
      // knex would print every failed connection attempt of an outage to the console; the requests it fails are
      // answered 503 and logged, once each, by the error handler.
      log: { warn: () => undefined, debug: () => undefined },
      pool: {
        min: 0,
        max: 10,
        afterCreate: (conn: PgClient, done: (err: Error | null, conn: unknown) => void) =>
          done(null, dropOnReadTimeout(conn)),
      },
    });
  }
  mkdirSync(config.dataDir, { recursive: true });
  const filename = join(config.dataDir, 'scribe.sqlite');
  ownerOnly(filename);
  const db = knex({
    client: 'better-sqlite3',
    connection: { filename },
    useNullAsDefault: true,
    pool: {
      afterCreate: (
        conn: { pragma: (sql: string) => unknown; prepare: (sql: string) => unknown },
        done: (err: Error | null, conn: unknown) => void,
      ) => {
        conn.pragma('journal_mode = WAL');
        // Durability kept: with WAL, NORMAL syncs the log at checkpoints instead of at every commit. A crash of the
        // process (kill -9 included) loses no committed transaction (the log is in the OS's hands once written); a
        // power loss or OS crash may lose the last transactions before the checkpoint but never corrupts the
        // database. FULL cost 5–8 ms of fsync per commit on the event loop (the job queue commits several times per
        // task and every progress step), against ≈ 0.05 ms now.
        conn.pragma('synchronous = NORMAL');
        conn.pragma('foreign_keys = ON');
        conn.pragma(`busy_timeout = ${timeouts.sqliteBusyTimeoutMs}`);
        done(null, rememberPreparedStatements(conn));
      },
    },
  });
  attachReadConnection(db, filename);
  return db;
}

/** How long a start waits for another process's migrations before it gives up. */
const MIGRATION_LOCK_WAIT_MS = 120_000;

/** Key of the PostgreSQL advisory lock that lets one process at a time migrate (any fixed number of ours). */
const MIGRATION_ADVISORY_KEY = 7_261_125;

/**
 * Applies the pending migrations; resolves with knex's [batch, names applied]. On PostgreSQL, processes starting
 * together (several nodes, or `scribe migrate` beside them) take turns under an advisory lock held by one open
 * transaction: knex's own lock is not enough on a fresh database, where concurrent first runs race to create its
 * tables and can insert two lock rows, after which knex reports "already locked" forever. A `MigrationLocked` that
 * remains (another tool migrating) is waited out.
 */
export async function migrateToLatest(db: Database): Promise<[number, string[]]> {
  const latest = async () => {
    const deadline = Date.now() + MIGRATION_LOCK_WAIT_MS;
    for (;;) {
      try {
        return (await db.migrate.latest({ migrationSource })) as [number, string[]];
      } catch (error) {
        if ((error as Error).name !== 'MigrationLocked' || Date.now() > deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    }
  };
  if (databaseKind(db) !== 'postgres') return latest();
  return db.transaction(async (trx) => {
    await trx.raw('SELECT pg_advisory_xact_lock(?)', [MIGRATION_ADVISORY_KEY]);
    return latest();
  });
}

export async function rollbackAll(db: Database): Promise<void> {
  await db.migrate.rollback({ migrationSource }, true);
}
