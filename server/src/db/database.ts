// The knex instance: embedded SQLite (a file in the data dir, WAL) by default, PostgreSQL when DATABASE_URL is set.
import knex from 'knex';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../config.ts';
import { databaseKind, type Database } from './database-handle.ts';
import { attachReadConnection } from './hot-reads.ts';
import { migrationSource } from './migrations.ts';
import { rememberPreparedStatements } from './statement-cache.ts';

export { databaseKind, type Database, type DatabaseKind } from './database-handle.ts';

export function openDatabase(config: Pick<Config, 'databaseUrl' | 'dataDir'>): Database {
  if (config.databaseUrl) {
    return knex({ client: 'pg', connection: config.databaseUrl, pool: { min: 0, max: 10 } });
  }
  mkdirSync(config.dataDir, { recursive: true });
  const filename = join(config.dataDir, 'scribe.sqlite');
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
        conn.pragma('busy_timeout = 5000');
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
