// `npm run bench:scale`: Scribe split into roles on one PostgreSQL database, real processes.
//   1. Throughput of batch transcription with one and with two `worker` processes (one engine slot each), tasks
//      submitted through an `api` node, against the raw PocketSphinx pool with as many workers, in the same run on the
//      same audio: audio seconds per wall second, and the ratio.
//   2. The status route's p99 (autocannon, its own process) on an `api` node while two workers are saturated with
//      batch jobs, against the same route on one `all` node saturated by the same jobs in its own slots.
// On this 2-core machine every process shares the same two cores, so (1) shows what the split costs, not what a second
// machine gains, and (2) shows whether batch decoding in another process disturbs the API less than in the same one.
// Not part of `npm test`.
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import pg from 'pg';
import { ffmpegPath } from '../server/src/media/ffmpeg.ts';
import { ADMIN_TOKEN, freshDatabase } from '../server/src/test-support/test-databases.ts';
import { createPocketSphinxEngine } from '../server/src/transcriptions/engine/pocketsphinx/engine.ts';
import { freePort, startProcess, type Started } from '../test/support/processes.ts';
import { writeBenchResult } from './result.ts';

const TASKS = Number(process.env.BENCH_TASKS ?? 8);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const root = new URL('../', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'scribe-bench-scale-'));
const librivox = '/usr/share/pocketsphinx/test/data/librivox';

// The readings joined (≈ 25 s), as WAV for the API and raw PCM for the engine.
const ids = readFileSync(join(librivox, 'fileids'), 'utf8').split('\n').filter(Boolean);
writeFileSync(join(dir, 'list.txt'), ids.map((id) => `file '${join(librivox, `${id}.wav`)}'`).join('\n'));
const wav = join(dir, 'readings.wav');
const pcm = join(dir, 'readings.pcm');
const ffmpeg = (args: string[]) => execFileSync(ffmpegPath, ['-hide_banner', '-loglevel', 'error', '-y', ...args]);
ffmpeg(['-f', 'concat', '-safe', '0', '-i', join(dir, 'list.txt'), wav]);
ffmpeg(['-i', wav, '-f', 's16le', '-ac', '1', '-ar', '16000', pcm]);
const audioSeconds = readFileSync(pcm).length / 32000;
const wavBytes = readFileSync(wav);

async function rawPool(workers: number): Promise<number> {
  const engine = createPocketSphinxEngine({ workers });
  await Promise.all(Array.from({ length: workers }, () => engine.transcribe({ pcmPath: pcm, language: 'en' })));
  const began = performance.now();
  await Promise.all(Array.from({ length: TASKS }, () => engine.transcribe({ pcmPath: pcm, language: 'en' })));
  const wall = (performance.now() - began) / 1000;
  await engine.close();
  return (TASKS * audioSeconds) / wall;
}

interface Cluster {
  api: string;
  apiKey: string;
  nodes: Started[];
  db: pg.Client;
  stop(): Promise<void>;
}

/** A fresh database with the given processes (role → engine slots); the first process is the one that answers HTTP. */
async function cluster(roles: { role: 'api' | 'worker' | 'all'; slots: number }[]): Promise<Cluster> {
  const database = await freshDatabase('postgres');
  const nodes: Started[] = [];
  let api = '';
  for (const { role, slots } of roles) {
    const port = await freePort();
    nodes.push(
      await startProcess(
        process.execPath,
        ['--import', 'tsx', join(root, 'server/src/main.ts')],
        /Scribe is listening/,
        60_000,
        {
          DATABASE_URL: database.env.DATABASE_URL!,
          SCRIBE_DATA_DIR: mkdtempSync(join(dir, `${role}-`)),
          NODE_ENV: 'production',
          LOG_LEVEL: 'info',
          PORT: String(port),
          SCRIBE_ROLE: role,
          SCRIBE_WORKERS: String(slots),
          SCRIBE_ADMIN_TOKEN: ADMIN_TOKEN,
          SCRIBE_RATE_LIMIT_RPS: '0',
          SCRIBE_MAX_CONCURRENT_JOBS: '10000',
          SCRIBE_JOB_POLL_MS: '1000',
        },
      ),
    );
    if (!api) api = `http://127.0.0.1:${port}`;
  }
  const created = (await fetch(`${api}/admin/accounts`, {
    method: 'POST',
    headers: { 'X-Admin-Token': ADMIN_TOKEN, 'Content-Type': 'application/json' },
    body: JSON.stringify({ balance: 1_000_000 }),
  }).then((r) => r.json())) as { api_key: string };
  const db = new pg.Client({ connectionString: database.env.DATABASE_URL });
  await db.connect();
  return {
    api,
    apiKey: created.api_key,
    nodes,
    db,
    async stop() {
      await db.end();
      await Promise.all(nodes.map((node) => node.stop()));
      await database.drop();
    },
  };
}

async function submit(c: Cluster, count: number): Promise<string[]> {
  return Promise.all(
    Array.from({ length: count }, async () => {
      const form = new FormData();
      form.set('language', 'en');
      form.set('file', new Blob([wavBytes]), 'readings.wav');
      const reply = await fetch(`${c.api}/v3/transcriptions/async/create`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${c.apiKey}` },
        body: form,
      });
      const body = (await reply.json()) as { transcription_id?: string };
      if (reply.status !== 202) throw new Error(`create: ${reply.status} ${JSON.stringify(body)}`);
      return body.transcription_id!;
    }),
  );
}

/** Waits until the tasks have ended (read from the database, so that polling costs the servers nothing). */
async function ended(c: Cluster, ids: string[]): Promise<void> {
  for (;;) {
    const { rows } = await c.db.query(`SELECT status FROM transcriptions WHERE id = ANY($1)`, [ids]);
    const failed = rows.filter((row) => row.status !== 'completed' && ['failed', 'cancelled'].includes(row.status));
    if (failed.length > 0) throw new Error(`${failed.length} tasks did not complete`);
    if (rows.every((row) => row.status === 'completed')) return;
    await sleep(100);
  }
}

async function apiThroughput(workers: number): Promise<number> {
  const c = await cluster([
    { role: 'api', slots: 1 },
    ...Array.from({ length: workers }, () => ({ role: 'worker' as const, slots: 1 })),
  ]);
  try {
    await ended(c, await submit(c, workers)); // warm-up: each worker loads the model
    const began = performance.now();
    await ended(c, await submit(c, TASKS));
    return (TASKS * audioSeconds) / ((performance.now() - began) / 1000);
  } finally {
    await c.stop();
  }
}

async function statusP99(c: Cluster): Promise<{ p50: number; p99: number; rps: number }> {
  const [id] = await submit(c, 1);
  await ended(c, [id!]);
  // Saturate the engine slots with more work than the measurement lasts.
  const backlog = await submit(c, TASKS);
  await sleep(1000);
  const bin = join(root, 'node_modules/.bin/autocannon');
  const args = ['-j', '-c', '20', '-d', String(SECONDS), '-H', `Authorization=Bearer ${c.apiKey}`];
  const { stdout } = await promisify(execFile)(bin, [...args, `${c.api}/v3/transcriptions/status/${id}`], {
    maxBuffer: 64 * 1024 * 1024,
  });
  const result = JSON.parse(stdout) as {
    non2xx: number;
    errors: number;
    requests: { average: number };
    latency: { p50: number; p99: number };
  };
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${result.non2xx} non-2xx, ${result.errors} errors`);
  const { rows } = await c.db.query(
    `SELECT count(*)::int AS n FROM transcriptions WHERE id = ANY($1) AND status = 'processing'`,
    [backlog],
  );
  if (rows[0].n === 0) throw new Error('the workers were not busy during the measurement');
  return { p50: result.latency.p50, p99: result.latency.p99, rps: result.requests.average };
}

try {
  console.log(`audio ${audioSeconds.toFixed(1)} s × ${TASKS} tasks`);
  const raw1 = await rawPool(1);
  const api1 = await apiThroughput(1);
  const raw2 = await rawPool(2);
  const api2 = await apiThroughput(2);
  console.log(
    `1 worker process: ${api1.toFixed(2)} audio s / wall s; raw pool of 1: ${raw1.toFixed(2)}; ratio ${(api1 / raw1).toFixed(2)}`,
  );
  console.log(
    `2 worker processes: ${api2.toFixed(2)} audio s / wall s; raw pool of 2: ${raw2.toFixed(2)}; ratio ${(api2 / raw2).toFixed(2)}`,
  );
  console.log(`2 workers / 1 worker: ${(api2 / api1).toFixed(2)}`);

  const split = await cluster([
    { role: 'api', slots: 1 },
    { role: 'worker', slots: 1 },
    { role: 'worker', slots: 1 },
  ]);
  const onApi = await statusP99(split).finally(() => split.stop());
  const single = await cluster([{ role: 'all', slots: 2 }]);
  const onAll = await statusP99(single).finally(() => single.stop());
  console.log(
    `status p99 with workers saturated: api node ${onApi.p99} ms (p50 ${onApi.p50}, ${Math.round(onApi.rps)} req/s); all node ${onAll.p99} ms (p50 ${onAll.p50}, ${Math.round(onAll.rps)} req/s); api / all ${(onApi.p99 / onAll.p99).toFixed(2)}`,
  );

  writeBenchResult('scale', [
    {
      benchmark: 'scale: 1 worker process / raw pool of 1',
      measured: (api1 / raw1).toFixed(2),
      target: '(reported)',
      met: undefined,
    },
    {
      benchmark: 'scale: 2 worker processes / raw pool of 2',
      measured: (api2 / raw2).toFixed(2),
      target: '(reported)',
      met: undefined,
    },
    {
      benchmark: 'scale: 2 workers / 1 worker',
      measured: (api2 / api1).toFixed(2),
      target: '(reported)',
      met: undefined,
    },
    {
      benchmark: 'scale: status p99 saturated, api node / all node',
      measured: (onApi.p99 / onAll.p99).toFixed(2),
      target: '(reported)',
      met: undefined,
    },
  ]);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
