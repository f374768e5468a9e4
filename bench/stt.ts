// `npm run bench:stt`: the transcription pipeline against the raw engine, in one run on the same audio.
//   1. raw engine: 8 transcriptions of the LibriVox readings (joined, ≈ 25 s) straight into the PocketSphinx worker
//      pool (all workers busy) → audio seconds per wall second;
//   2. the API: the same 8 files as async uploads through the whole server (multipart, queue, leases, ffmpeg decode,
//      engine, result, capture) → audio seconds per wall second; target ≥ 0.9 × the raw pool;
//   3. sync latency of a 60 s file (create → completed, polled every 50 ms; the batch is polled at 4 Hz) against the raw decode of the same PCM;
//      target ≤ 1.15 ×.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { createApp } from '../server/src/app.ts';
import { loadConfig } from '../server/src/config.ts';
import { ffmpegPath } from '../server/src/media/ffmpeg.ts';
import { createPocketSphinxEngine } from '../server/src/transcriptions/engine/pocketsphinx/engine.ts';

const TASKS = Number(process.env.BENCH_TASKS ?? 8);
const workers = Number(process.env.SCRIBE_WORKERS ?? availableParallelism());
const dir = mkdtempSync(join(tmpdir(), 'scribe-bench-stt-'));
const librivox = '/usr/share/pocketsphinx/test/data/librivox';

function ffmpeg(args: string[]): void {
  execFileSync(ffmpegPath, ['-hide_banner', '-loglevel', 'error', '-y', ...args]);
}

// The readings joined (wav + raw PCM of the same audio), and a 60 s file looped from them.
const ids = readFileSync(join(librivox, 'fileids'), 'utf8').split('\n').filter(Boolean);
writeFileSync(join(dir, 'list.txt'), ids.map((id) => `file '${join(librivox, `${id}.wav`)}'`).join('\n'));
const wav = join(dir, 'readings.wav');
ffmpeg(['-f', 'concat', '-safe', '0', '-i', join(dir, 'list.txt'), wav]);
const pcm = join(dir, 'readings.pcm');
ffmpeg(['-i', wav, '-f', 's16le', '-ac', '1', '-ar', '16000', pcm]);
const wav60 = join(dir, 'minute.wav');
ffmpeg(['-stream_loop', '-1', '-i', wav, '-t', '60', wav60]);
const pcm60 = join(dir, 'minute.pcm');
ffmpeg(['-i', wav60, '-f', 's16le', '-ac', '1', '-ar', '16000', pcm60]);
const seconds = readFileSync(pcm).length / 32000;

// 1. The raw engine pool.
const engine = createPocketSphinxEngine({ workers });
await engine.transcribe({ pcmPath: pcm, language: 'en' }); // warm-up: the workers load the model
let started = performance.now();
await Promise.all(Array.from({ length: TASKS }, () => engine.transcribe({ pcmPath: pcm, language: 'en' })));
const rawWall = (performance.now() - started) / 1000;
started = performance.now();
await engine.transcribe({ pcmPath: pcm60, language: 'en' });
const raw60 = (performance.now() - started) / 1000;
await engine.close();

// 2 and 3. The API, in production mode, on SQLite.
const config = loadConfig({
  ...process.env,
  NODE_ENV: 'production',
  SCRIBE_DATA_DIR: join(dir, 'data'),
  SCRIBE_RATE_LIMIT_RPS: '0',
  SCRIBE_WORKERS: String(workers),
  SCRIBE_MAX_CONCURRENT_JOBS: String(TASKS + 1),
  SCRIBE_JOB_POLL_MS: '200',
  LOG_LEVEL: 'silent',
});
const app = await createApp(config, { logger: pino({ level: 'silent' }) });
await new Promise<void>((resolve) => app.server.listen(0, '127.0.0.1', resolve));
const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
const { api_key: key } = await app.services.accounts.create({ balance: 10_000 });
const auth = { Authorization: `Bearer ${key}` };

async function create(path: string, mode: 'sync' | 'async'): Promise<string> {
  const form = new FormData();
  form.set('language', 'en');
  form.set('file', new Blob([readFileSync(path)]), 'audio.wav');
  const reply = await fetch(`${base}/v3/transcriptions/${mode}/create`, { method: 'POST', headers: auth, body: form });
  const body = (await reply.json()) as { transcription_id?: string; data?: { id: string } };
  if (reply.status >= 300) throw new Error(`create: ${reply.status} ${JSON.stringify(body)}`);
  return body.transcription_id ?? body.data!.id;
}

/** Polls the status; 4 Hz for the batch (a client's usual pace; each poll costs the server's main thread CPU). */
async function completed(id: string, pollMs = 250): Promise<void> {
  for (;;) {
    const reply = await fetch(`${base}/v3/transcriptions/status/${id}`, { headers: auth });
    const { data } = (await reply.json()) as { data: { status: string; error?: unknown } };
    if (data.status === 'completed') return;
    if (data.status === 'failed' || data.status === 'cancelled') throw new Error(JSON.stringify(data));
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}

await completed(await create(wav, 'async')); // warm-up
started = performance.now();
const tasks = await Promise.all(Array.from({ length: TASKS }, () => create(wav, 'async')));
await Promise.all(tasks.map(completed));
const apiWall = (performance.now() - started) / 1000;
started = performance.now();
await completed(await create(wav60, 'sync'), 50);
const api60 = (performance.now() - started) / 1000;
await app.close();

const rawThroughput = (TASKS * seconds) / rawWall;
const apiThroughput = (TASKS * seconds) / apiWall;
console.log(`audio ${seconds.toFixed(1)} s × ${TASKS} tasks, ${workers} workers`);
console.log(`raw engine pool   ${rawThroughput.toFixed(2)} audio s / wall s (${rawWall.toFixed(2)} s)`);
console.log(`API async         ${apiThroughput.toFixed(2)} audio s / wall s (${apiWall.toFixed(2)} s)`);
console.log(`throughput ratio (API / raw pool): ${(apiThroughput / rawThroughput).toFixed(2)}  (target ≥ 0.9)`);
console.log(`60 s file: raw decode ${raw60.toFixed(2)} s, API sync create → completed ${api60.toFixed(2)} s`);
console.log(`latency ratio (API / raw): ${(api60 / raw60).toFixed(2)}  (target ≤ 1.15)`);
