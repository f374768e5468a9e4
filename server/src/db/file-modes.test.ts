// The SQLite files hold account data, key hashes and sealed secrets: the database, its -wal and -shm files and the
// generated secret.key are readable by their owner only (0600) whatever the umask, and a database file left 0644 by
// an older version is narrowed when it is opened.
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { loadConfig } from '../config.ts';
import { migrateToLatest, openDatabase } from './database.ts';

const test = suite('database file modes (SQLite)');
const modeOf = (file: string) => (statSync(file).mode & 0o777).toString(8);

test('scribe.sqlite, its -wal and -shm and secret.key are 0600 under a 022 umask', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'scribe-modes-'));
  const umask = process.umask(0o022);
  try {
    const config = loadConfig({ NODE_ENV: 'test', SCRIBE_DATA_DIR: dataDir });
    const db = openDatabase(config);
    try {
      await migrateToLatest(db);
      await db('server_settings')
        .insert({ name: 'probe', value: 'x' })
        .catch(() => undefined);
      for (const name of ['scribe.sqlite', 'scribe.sqlite-wal', 'scribe.sqlite-shm', 'secret.key']) {
        assert.is(modeOf(join(dataDir, name)), '600', name);
      }
    } finally {
      await db.destroy();
    }
  } finally {
    process.umask(umask);
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('a database file left 0644 is narrowed to 0600 when opened', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'scribe-modes-'));
  try {
    writeFileSync(join(dataDir, 'scribe.sqlite'), '', { mode: 0o644 });
    assert.is(modeOf(join(dataDir, 'scribe.sqlite')), '644');
    const db = openDatabase({ databaseUrl: undefined, dataDir });
    await db.destroy();
    assert.is(modeOf(join(dataDir, 'scribe.sqlite')), '600');
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test.run();
