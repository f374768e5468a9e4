// The knex instance: embedded SQLite (a file in the data dir, WAL) by default, PostgreSQL when DATABASE_URL is set.
import knex, { type Knex } from 'knex';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../config.ts';
import { migrationSource } from './migrations.ts';
import { rememberPreparedStatements } from './statement-cache.ts';

export type Database = Knex;
export type DatabaseKind = 'sqlite' | 'postgres';

export function databaseKind(db: Database): DatabaseKind {
  return db.client.config.client === 'pg' ? 'postgres' : 'sqlite';
}

export function openDatabase(config: Pick<Config, 'databaseUrl' | 'dataDir'>): Database {
  if (config.databaseUrl) {
    return knex({ client: 'pg', connection: config.databaseUrl, pool: { min: 0, max: 10 } });
  }
  mkdirSync(config.dataDir, { recursive: true });
  return knex({
    client: 'better-sqlite3',
    connection: { filename: join(config.dataDir, 'scribe.sqlite') },
    useNullAsDefault: true,
    pool: {
      afterCreate: (
        conn: { pragma: (sql: string) => unknown; prepare: (sql: string) => unknown },
        done: (err: Error | null, conn: unknown) => void,
      ) => {
        conn.pragma('journal_mode = WAL');
        conn.pragma('foreign_keys = ON');
        conn.pragma('busy_timeout = 5000');
        done(null, rememberPreparedStatements(conn));
      },
    },
  });
}

export async function migrateToLatest(db: Database): Promise<void> {
  await db.migrate.latest({ migrationSource });
}

export async function rollbackAll(db: Database): Promise<void> {
  await db.migrate.rollback({ migrationSource }, true);
}
