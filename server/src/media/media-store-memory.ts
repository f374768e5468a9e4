// Measures what storing and fetching a medium of MEDIA_SIZE_MB (25 unless set) costs in memory: run as its own
// process (so its RSS is only this) against the migrated PostgreSQL database at DATABASE_URL; prints one JSON line
// with the peak RSS and its growth over the baseline taken after the database pool is warm. Used by media-store.test.ts; also by hand:
//   DATABASE_URL=postgres://… node --import tsx server/src/media/media-store-memory.ts
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { closeSync, createReadStream, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { migrateToLatest, openDatabase } from '../db/database.ts';
import { createMediaStore } from './media-store.ts';

const SIZE_MB = Number(process.env.MEDIA_SIZE_MB ?? 25);
const MB = 1024 * 1024;

async function sha256(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const piece of createReadStream(path)) hash.update(piece as Buffer);
  return hash.digest('hex');
}

const databaseUrl = process.env.DATABASE_URL;
if (!databaseUrl) throw new Error('DATABASE_URL (PostgreSQL) is required');
const dir = mkdtempSync(join(tmpdir(), 'scribe-media-memory-'));
const db = openDatabase({ databaseUrl, dataDir: dir });
try {
  await migrateToLatest(db);
  const store = createMediaStore(db, []); // stores and fetches only: never swept
  // Written 1 MiB at a time, so the file never is in this process's memory either.
  const original = join(dir, 'original.bin');
  const fd = openSync(original, 'w');
  for (let i = 0; i < SIZE_MB; i += 1) writeSync(fd, randomBytes(MB));
  closeSync(fd);
  const expected = await sha256(original);
  // A small file first: the code paths are loaded and the pool is warm, so the baseline is the steady state.
  const warmUp = join(dir, 'warm-up.bin');
  const warmFd = openSync(warmUp, 'w');
  writeSync(warmFd, randomBytes(2 * MB));
  closeSync(warmFd);
  await store.put('00000000-0000-4000-8000-000000000000', warmUp);
  await store.fetch('00000000-0000-4000-8000-000000000000', join(dir, 'warm-up-copy.bin'));
  await store.remove('00000000-0000-4000-8000-000000000000');

  const baseline = process.memoryUsage().rss;
  let peak = baseline;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
  const id = randomUUID();
  const putStarted = Date.now();
  await store.put(id, original);
  const putMs = Date.now() - putStarted;
  const afterPut = peak;
  const copy = join(dir, 'copy.bin');
  const fetchStarted = Date.now();
  await store.fetch(id, copy);
  const fetchMs = Date.now() - fetchStarted;
  peak = Math.max(peak, process.memoryUsage().rss);
  clearInterval(sampler);
  const identical = (await sha256(copy)) === expected;
  await store.remove(id);
  const mb = (bytes: number) => Math.round((bytes / MB) * 10) / 10;
  console.log(
    JSON.stringify({
      fileMb: SIZE_MB,
      baselineRssMb: mb(baseline),
      peakRssMb: mb(peak),
      growthMb: mb(peak - baseline),
      growthDuringPutMb: mb(afterPut - baseline),
      putMs,
      fetchMs,
      identical,
    }),
  );
} finally {
  await db.destroy();
  rmSync(dir, { recursive: true, force: true });
}
