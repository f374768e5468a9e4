// Fresh test databases that already hold the schema. Most server test files start an app on a database of their
// own, and each start applied every migration anew: ≈ 0.4 s of CPU in the test's process, and DDL work in
// PostgreSQL's. Here the migrations run once per set of migrations into a template — a PostgreSQL template database,
// an SQLite file — and a fresh database is a copy of it (`CREATE DATABASE … TEMPLATE`, a file copy). The app still
// runs its migrations at start and finds nothing to apply, so the schema under test is the one the migrations make.
// Tests of the migrations themselves take empty databases (test-databases.ts freshDatabase without `migrated`).
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
} from 'node:fs';
import { join } from 'node:path';
import Sqlite from 'better-sqlite3';
import pg from 'pg';

const root = new URL('../../../', import.meta.url).pathname;
const migrationsDir = join(root, 'server/migrations');
const cacheDir = join(root, 'node_modules/.cache');
const SQLITE_FILE = 'scribe.sqlite';

/** Any fixed number of ours: one process at a time builds the PostgreSQL template. */
const TEMPLATE_ADVISORY_KEY = 7_261_126;

/** Names the set of migrations: a template made by other migrations is never used. */
function migrationsKey(): string {
  const hash = createHash('sha256');
  for (const file of readdirSync(migrationsDir).sort()) {
    hash.update(`${file}\n`).update(readFileSync(join(migrationsDir, file)));
  }
  return hash.digest('hex').slice(0, 16);
}

async function migrate(config: { databaseUrl: string | undefined; dataDir: string }): Promise<void> {
  // Loaded only here: files that start servers as processes do not load the server's database code to get a database.
  const { migrateToLatest, openDatabase } = await import('../db/database.ts');
  const db = openDatabase(config);
  try {
    await migrateToLatest(db);
  } finally {
    await db.destroy();
  }
}

let postgresTemplate: Promise<string> | undefined;

/** The template database on the server at `adminUrl` for the current migrations (made once, by one process). */
export function migratedPostgresTemplate(adminUrl: string): Promise<string> {
  return (postgresTemplate ??= (async () => {
    const name = `scribe_template_${migrationsKey()}`;
    const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 5000 });
    await client.connect();
    try {
      await client.query('SELECT pg_advisory_lock($1)', [TEMPLATE_ADVISORY_KEY]);
      const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1 AND datistemplate', [name]);
      if (found.rowCount === 0) {
        // Built under another name and renamed when complete: a run killed half-way leaves no half-made template.
        const building = `${name}_building`;
        await client.query(`DROP DATABASE IF EXISTS ${building} WITH (FORCE)`);
        await client.query(`CREATE DATABASE ${building}`);
        const url = new URL(adminUrl);
        url.pathname = `/${building}`;
        await migrate({ databaseUrl: url.toString(), dataDir: '' });
        await client.query(`ALTER DATABASE ${building} RENAME TO ${name}`);
        await client.query(`ALTER DATABASE ${name} IS_TEMPLATE true`);
      }
    } finally {
      await client.end(); // ends the session, and with it the advisory lock
    }
    return name;
  })());
}

let sqliteTemplate: Promise<string> | undefined;

/** The SQLite file of the current migrations (made once per checkout; processes racing to make it agree on one). */
function migratedSqliteTemplate(): Promise<string> {
  return (sqliteTemplate ??= (async () => {
    const dir = join(cacheDir, `scribe-sqlite-template-${migrationsKey()}`);
    const file = join(dir, SQLITE_FILE);
    if (existsSync(file)) return file;
    mkdirSync(cacheDir, { recursive: true });
    const building = mkdtempSync(join(cacheDir, 'scribe-sqlite-template-building-'));
    try {
      await migrate({ databaseUrl: undefined, dataDir: building });
      // One self-contained file: the log folded in (the server turns WAL on again when it opens its copy).
      const db = new Sqlite(join(building, SQLITE_FILE));
      db.pragma('journal_mode = DELETE');
      db.close();
      renameSync(building, dir);
    } catch (error) {
      rmSync(building, { recursive: true, force: true });
      if (!existsSync(file)) throw error; // another process made it first: use that one
    }
    return file;
  })());
}

/** Fills an empty data dir with a migrated SQLite database. */
export async function copyMigratedSqlite(dataDir: string): Promise<void> {
  copyFileSync(await migratedSqliteTemplate(), join(dataDir, SQLITE_FILE));
}
