// The databases a test runs on: a fresh SQLite data dir, or a fresh database on the tests' PostgreSQL server. Kept
// apart from the in-process harness so tests that start servers as processes do not load the whole app to get them.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { DatabaseKind } from '../db/database.ts';
import { copyMigratedSqlite, migratedPostgresTemplate } from './migrated-templates.ts';
import { postgresAnswers, startThrowawayPostgres } from './throwaway-postgres.ts';

export type { DatabaseKind };
export const databaseKinds: readonly DatabaseKind[] = ['sqlite', 'postgres'];

/** The PostgreSQL server the tests use when it answers (trust auth); a database is created and dropped per harness. */
export const POSTGRES_ADMIN_URL = process.env.SCRIBE_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

let postgresServer: Promise<string> | undefined;

/**
 * The PostgreSQL server the tests create their databases in: the one at POSTGRES_ADMIN_URL when it answers, otherwise
 * a throwaway one started for this process (npm test starts one for the whole run and hands its URL to every file, so
 * this only happens when a test file runs on its own). Either way the PostgreSQL variants run.
 */
export function postgresAdminUrl(): Promise<string> {
  return (postgresServer ??= (async () => {
    if (await postgresAnswers(POSTGRES_ADMIN_URL)) return POSTGRES_ADMIN_URL;
    const server = await startThrowawayPostgres({ stopOnExit: true });
    console.log(`No PostgreSQL answers at ${POSTGRES_ADMIN_URL}: started a throwaway one for this test file.`);
    return server.url;
  })());
}
export const ADMIN_TOKEN = 'test-admin-token-4f8a2c9e1b7d';

async function createPostgresDatabase(migrated: boolean): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `scribe_test_${randomBytes(6).toString('hex')}`;
  const adminUrl = await postgresAdminUrl();
  const template = migrated ? ` TEMPLATE ${await migratedPostgresTemplate(adminUrl)}` : '';
  const adminClient = () => new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 5000 });
  const client = adminClient();
  try {
    await client.connect();
  } catch (error) {
    throw new Error(`PostgreSQL is unreachable at ${adminUrl} (${(error as Error).message}).`, { cause: error });
  }
  try {
    await client.query(`CREATE DATABASE ${name}${template}`);
  } finally {
    await client.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const dropper = adminClient();
      await dropper.connect();
      try {
        await dropper.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await dropper.end();
      }
    },
  };
}

/**
 * A fresh database of the given kind: the SCRIBE_* / DATABASE_URL environment for it and its teardown. Empty, or with
 * `migrated` a copy of the schema the migrations make (migrated-templates.ts), for tests that do not test migrating.
 */
export async function freshDatabase(
  kind: DatabaseKind,
  { migrated = false }: { migrated?: boolean } = {},
): Promise<{ env: Record<string, string>; drop(): Promise<void> }> {
  const dataDir = mkdtempSync(join(tmpdir(), `scribe-test-${kind}-`));
  const removeDir = async () => rmSync(dataDir, { recursive: true, force: true });
  try {
    if (kind === 'sqlite') {
      if (migrated) await copyMigratedSqlite(dataDir);
      return { env: { SCRIBE_DATA_DIR: dataDir }, drop: removeDir };
    }
    const database = await createPostgresDatabase(migrated);
    return {
      env: { SCRIBE_DATA_DIR: dataDir, DATABASE_URL: database.url },
      drop: async () => {
        await database.drop();
        await removeDir();
      },
    };
  } catch (error) {
    await removeDir();
    throw error;
  }
}
