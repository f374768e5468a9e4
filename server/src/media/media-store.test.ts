// The media store on a real PostgreSQL database: a file of several chunks comes back byte for byte, a task's media
// is replaced whole and removed, the sweep takes media of ended tasks and old media without a task but leaves an
// intake in progress alone, and storing and fetching a file takes memory that does not grow with the file's size
// (child processes measure their own RSS). On SQLite the store is the local one: nothing leaves the data dir.
import { execFileSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { migrateToLatest, openDatabase, type Database } from '../db/database.ts';
import { freshDatabase } from '../test-support/test-databases.ts';
import { UNFINISHED } from '../transcriptions/jobs.ts';
import { CHUNK_BYTES, createMediaStore, localMediaStore, StoredMediaMissing, type MediaStore } from './media-store.ts';

const dir = mkdtempSync(join(tmpdir(), 'scribe-media-store-'));
const test = suite('media store (postgres)');
let database: Awaited<ReturnType<typeof freshDatabase>> | undefined;
let db: Database | undefined;
let store: MediaStore | undefined;
const ready = () => ({ db: db!, store: store! });

test.before(async () => {
  database = await freshDatabase('postgres');
  db = openDatabase({ databaseUrl: database.env.DATABASE_URL, dataDir: database.env.SCRIBE_DATA_DIR! });
  await migrateToLatest(db);
  store = createMediaStore(db, UNFINISHED);
});

test.after(async () => {
  await db?.destroy();
  await database?.drop();
  rmSync(dir, { recursive: true, force: true });
});

async function chunkSizes(db: Database, taskId: string): Promise<number[]> {
  const rows = (await db('media_chunks')
    .where({ task_id: taskId })
    .orderBy('seq')
    .select(db.raw('octet_length(data) AS size'))) as { size: number }[];
  return rows.map((row) => Number(row.size));
}

/** A task row in `status`, created directly (the sweep only reads id and status). */
async function insertTask(db: Database, id: string, status: string): Promise<void> {
  const account = randomUUID();
  const at = new Date().toISOString();
  await db('accounts').insert({ id: account, currency: 'RUB', created_at: at, updated_at: at });
  await db('transcriptions').insert({
    id,
    account_id: account,
    status,
    mode: 'async',
    api_version: 'v3',
    priority: 'queue',
    source_type: 'upload',
    filename: 'a.wav',
    language: 'en',
    diarization: false,
    progress: 0,
    created_at: at,
  });
}

test('a file of several chunks comes back byte for byte, in chunks of at most 1 MiB', async () => {
  const { db, store } = ready();
  assert.ok(store.shared);
  const original = join(dir, 'multi.bin');
  const bytes = randomBytes(3 * CHUNK_BYTES + 12_345);
  writeFileSync(original, bytes);
  const id = randomUUID();
  await store.put(id, original);
  const sizes = await chunkSizes(db, id);
  assert.equal(sizes, [CHUNK_BYTES, CHUNK_BYTES, CHUNK_BYTES, 12_345]);
  const copy = join(dir, 'copy.bin');
  await store.fetch(id, copy);
  assert.ok(readFileSync(copy).equals(bytes), 'the fetched file differs from the stored one');
  assert.equal(
    readdirSync(dir).filter((name) => name.endsWith('.part')),
    [],
    'a partial file was left behind',
  );
});

test('the data column is stored without compression (STORAGE EXTERNAL)', async () => {
  const { db } = ready();
  const result = (await db.raw(
    `SELECT attstorage FROM pg_attribute WHERE attrelid = 'media_chunks'::regclass AND attname = 'data'`,
  )) as { rows: { attstorage: string }[] };
  assert.is(result.rows[0]?.attstorage, 'e');
});

test('put replaces the stored medium whole; remove deletes it; fetch of nothing stored rejects and writes nothing', async () => {
  const { db, store } = ready();
  const id = randomUUID();
  const first = join(dir, 'first.bin');
  writeFileSync(first, randomBytes(2 * CHUNK_BYTES + 1));
  await store.put(id, first);
  const second = join(dir, 'second.bin');
  const smaller = randomBytes(1000);
  writeFileSync(second, smaller);
  await store.put(id, second);
  assert.equal(await chunkSizes(db, id), [1000]);
  const copy = join(dir, 'replaced.bin');
  await store.fetch(id, copy);
  assert.ok(readFileSync(copy).equals(smaller));

  const empty = join(dir, 'empty.bin');
  writeFileSync(empty, '');
  const emptyId = randomUUID();
  await store.put(emptyId, empty);
  await store.fetch(emptyId, join(dir, 'empty-copy.bin'));
  assert.is(readFileSync(join(dir, 'empty-copy.bin')).length, 0);

  await store.remove(id);
  assert.equal(await chunkSizes(db, id), []);
  const target = join(dir, 'never.bin');
  try {
    await store.fetch(id, target);
    assert.unreachable('fetch of a removed medium resolved');
  } catch (error) {
    assert.instance(error, StoredMediaMissing);
  }
  assert.not.ok(existsSync(target));
  assert.equal(
    readdirSync(dir).filter((name) => name.endsWith('.part')),
    [],
  );
});

test('the sweep takes ended tasks and old media without a task; keeps unfinished tasks and a young intake', async () => {
  const { db, store } = ready();
  const file = join(dir, 'sweep.bin');
  writeFileSync(file, randomBytes(CHUNK_BYTES + 10));
  const ids = {
    completed: randomUUID(),
    cancelled: randomUUID(),
    processing: randomUUID(),
    oldProcessing: randomUUID(),
    orphanOld: randomUUID(),
    orphanYoung: randomUUID(),
  };
  for (const id of Object.values(ids)) await store.put(id, file);
  await insertTask(db, ids.completed, 'completed');
  await insertTask(db, ids.cancelled, 'cancelled');
  await insertTask(db, ids.processing, 'processing');
  await insertTask(db, ids.oldProcessing, 'ready');
  const twoHoursAgo = new Date(Date.now() - 2 * 3600_000).toISOString();
  await db('media_chunks').whereIn('task_id', [ids.orphanOld, ids.oldProcessing]).update({ created_at: twoHoursAgo });
  const fiftyMinutesAgo = new Date(Date.now() - 50 * 60_000).toISOString();
  await db('media_chunks').where({ task_id: ids.orphanYoung }).update({ created_at: fiftyMinutesAgo });

  assert.is(await store.sweep(), 6, 'two chunks each of three media');
  assert.equal(await chunkSizes(db, ids.completed), []);
  assert.equal(await chunkSizes(db, ids.cancelled), []);
  assert.equal(await chunkSizes(db, ids.orphanOld), []);
  assert.is((await chunkSizes(db, ids.processing)).length, 2);
  assert.is((await chunkSizes(db, ids.oldProcessing)).length, 2, 'an old medium of an unfinished task was swept');
  assert.is((await chunkSizes(db, ids.orphanYoung)).length, 2, 'an intake in progress lost its medium');
  assert.is(await store.sweep(), 0);
});

// A child process per size, so each RSS is only that store's work. The peak is compared between a small and a large
// medium, not against the process's own baseline: how much garbage a Node line lets pile up before collecting
// differs (Node 24 has reached 32 MB over a streamed 25 MB file, Node 20 about 10) and so does the baseline, while
// the peak a streaming store reaches does not depend on the file's size, and a store holding the file would add at
// least the size difference (twice that while the driver's hex text of it exists).
const measureMemory = (sizeMb: number) => {
  const output = execFileSync(
    process.execPath,
    ['--import', 'tsx', join(import.meta.dirname, 'media-store-memory.ts')],
    {
      env: { ...process.env, DATABASE_URL: database!.env.DATABASE_URL, MEDIA_SIZE_MB: String(sizeMb) },
      encoding: 'utf8',
      timeout: 120_000,
    },
  );
  const measured = JSON.parse(output.trim().split('\n').pop()!) as { peakRssMb: number; identical: boolean };
  console.log(`  media store memory: ${JSON.stringify(measured)}`);
  assert.ok(measured.identical, `the fetched ${sizeMb} MB file differs`);
  return measured.peakRssMb;
};

test('storing and fetching 160 MB peaks less than 72 MB above storing and fetching 16 MB', () => {
  const small = measureMemory(16);
  const large = measureMemory(160);
  assert.ok(large - small < 72, `peak RSS ${small} MB with 16 MB, ${large} MB with 160 MB`);
});

test.run();

const local = suite('media store (sqlite): the local store');

local('on SQLite the store is the local one: it keeps nothing and has nothing to fetch', async () => {
  const sqlite = await freshDatabase('sqlite');
  const db = openDatabase({ databaseUrl: undefined, dataDir: sqlite.env.SCRIBE_DATA_DIR! });
  try {
    await migrateToLatest(db);
    const store = createMediaStore(db, UNFINISHED);
    assert.is(store, localMediaStore);
    assert.not.ok(store.shared);
    const file = join(sqlite.env.SCRIBE_DATA_DIR!, 'local.bin');
    writeFileSync(file, 'x');
    await store.put(randomUUID(), file);
    assert.is((await db('media_chunks')).length, 0);
    assert.is(await store.sweep(), 0);
  } finally {
    await db.destroy();
    await sqlite.drop();
  }
});

local.run();
