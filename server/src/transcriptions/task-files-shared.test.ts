// Task files of two processes with their own data dirs on one PostgreSQL database: the process that accepted the
// upload keeps its one ffmpeg run for its own job, the other fetches the original from the media store into its
// own folder and decodes it there; a task that ends leaves no folder and no stored chunk; a process that runs no
// jobs (role `api`) only probes and keeps no copy. Real ffmpeg (counted through a wrapper), real speech, real
// PostgreSQL.
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { countFfmpegRuns, realFfmpeg } from '../test-support/counting-ffmpeg.ts';

const dir = mkdtempSync(join(tmpdir(), 'scribe-task-files-shared-'));
const runCount = countFfmpegRuns(dir); // before the modules under test load media/ffmpeg.ts
const { createTaskFiles } = await import('./task-files.ts');
const { createMediaStore } = await import('../media/media-store.ts');
const { UNFINISHED } = await import('./jobs.ts');
const { migrateToLatest, openDatabase } = await import('../db/database.ts');
const { freshDatabase } = await import('../test-support/harness.ts');

const SPEECH = '/usr/share/pocketsphinx/test/data/goforward.raw';
const media = join(dir, 'speech.mp3');
execFileSync(realFfmpeg, ['-loglevel', 'error', '-f', 's16le', '-ar', '16000', '-ac', '1', '-i', SPEECH, media]);

const test = suite('task files on a shared PostgreSQL media store');
let database: Awaited<ReturnType<typeof freshDatabase>> | undefined;
let db: ReturnType<typeof openDatabase> | undefined;

test.before(async () => {
  database = await freshDatabase('postgres');
  db = openDatabase({ databaseUrl: database.env.DATABASE_URL, dataDir: database.env.SCRIBE_DATA_DIR! });
  await migrateToLatest(db);
});

test.after(async () => {
  await db?.destroy();
  await database?.drop();
  rmSync(dir, { recursive: true, force: true });
});

/** An upload as the multipart reader leaves it: a file in the process's uploads folder. */
function upload(dataDir: string): string {
  mkdirSync(join(dataDir, 'uploads'), { recursive: true });
  const path = join(dataDir, 'uploads', `${randomUUID()}.mp3`);
  copyFileSync(media, path);
  return path;
}

const chunksOf = async (id: string) =>
  Number((await db!('media_chunks').where({ task_id: id }).count({ n: '*' }))[0]!.n);

test('accepted on A, decoded on B from the store; A keeps its one run for its own job; removal leaves nothing', async () => {
  const store = createMediaStore(db!, UNFINISHED);
  const dirA = join(dir, 'node-a');
  const dirB = join(dir, 'node-b');
  const a = createTaskFiles(dirA, store);
  const b = createTaskFiles(dirB, store);

  // A task accepted on A and run by B.
  const id = randomUUID();
  const adopted = await a.adoptUpload(id, upload(dirA));
  const probed = await a.probeAndDecode(id, adopted);
  assert.ok(Math.abs(probed.durationSeconds - 2.79) < 0.1, `${probed.durationSeconds} s`);
  const name = await a.share(id, adopted);
  assert.is(name, 'original.mp3', 'media_path names no process path');
  assert.ok((await chunksOf(id)) >= 1);
  const before = runCount();
  const pcm = await b.decode(id, name, new AbortController().signal);
  assert.is(runCount() - before, 1, 'B decodes with its own run');
  assert.ok(Math.abs(pcm.samples - 44_580) < 1600, `${pcm.samples} samples`);
  assert.ok(readFileSync(join(dirB, 'tasks', id, name)).equals(readFileSync(media)), 'B fetched another file');
  await b.remove(id);
  assert.is(await chunksOf(id), 0, 'chunks left after the task ended');
  assert.not.ok(existsSync(join(dirB, 'tasks', id)));
  // A's decode was never taken: letting go of the task clears A's scratch (the store has the original).
  await a.leave(id);
  assert.not.ok(existsSync(join(dirA, 'tasks', id)));

  // A task accepted and run on A: the decode started by the probe is the job's (no second run, nothing fetched).
  const own = randomUUID();
  const ownPath = await a.adoptUpload(own, upload(dirA));
  await a.probeAndDecode(own, ownPath);
  const ownName = await a.share(own, ownPath);
  const runsBefore = runCount();
  const ownPcm = await a.decode(own, ownName, new AbortController().signal);
  assert.is(runCount() - runsBefore, 0, 'A started a second ffmpeg run');
  assert.ok(ownPcm.samples > 40_000);
  await a.remove(own);
  assert.is(await chunksOf(own), 0);
  assert.not.ok(existsSync(join(dirA, 'tasks', own)));
});

test('a row naming another process absolute path is fetched into this process folder', async () => {
  const store = createMediaStore(db!, UNFINISHED);
  const c = createTaskFiles(join(dir, 'node-c'), store);
  const id = randomUUID();
  await store.put(id, media);
  const pcm = await c.decode(id, `/somewhere/else/tasks/${id}/original.mp3`, new AbortController().signal);
  assert.ok(pcm.samples > 40_000);
  assert.ok(existsSync(join(dir, 'node-c', 'tasks', id, 'original.mp3')));
  await c.remove(id);
  assert.is(await chunksOf(id), 0);
});

test('a process that runs no jobs only probes and keeps no copy once the original is stored', async () => {
  const store = createMediaStore(db!, UNFINISHED);
  const apiDir = join(dir, 'node-api');
  const api = createTaskFiles(apiDir, store, { runsJobs: false });
  const id = randomUUID();
  const adopted = await api.adoptUpload(id, upload(apiDir));
  const before = runCount();
  const probed = await api.probeAndDecode(id, adopted);
  assert.is(probed.format, 'mp3');
  assert.is(runCount() - before, 1, 'one ffmpeg run: the probe');
  await api.share(id, adopted);
  assert.not.ok(existsSync(join(apiDir, 'tasks', id)), 'the api process kept its copy');
  assert.ok((await chunksOf(id)) >= 1);
  await api.remove(id);
  assert.is(await chunksOf(id), 0);
});

test('a job with nothing stored and no local copy fails instead of decoding nothing', async () => {
  const files = createTaskFiles(join(dir, 'node-d'), createMediaStore(db!, UNFINISHED));
  try {
    await files.decode(randomUUID(), 'original.wav', new AbortController().signal);
    assert.unreachable('decoded a medium that exists nowhere');
  } catch (error) {
    assert.match((error as Error).message, /holds no medium/);
  }
});

test.run();
