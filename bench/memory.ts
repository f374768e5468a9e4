// `node --import tsx bench/memory.ts` (also part of `npm run bench`): resident memory of a real server process (`server/src/main.ts`,
// production mode, SQLite, its engine workers included), read from /proc/<pid>/status while this process drives it:
//   1. idle: started, engine workers loaded, one request served, 3 s quiet;
//   2. 8 async tasks: the LibriVox readings joined (≈ 25 s) uploaded 8 times at once, peak RSS until all complete;
//   3. 12 live streams: 12 WebSocket sessions at once sending speech at real-time pace, peak RSS;
//   4. a 25 MB upload: one async upload of a 25 MB WAV, peak RSS growth from before the upload until the server
//      answered (target < 30 MB: the body is streamed to disk, never held whole).
// Peaks are sampled every 50 ms. `BENCH_TASKS`, `BENCH_STREAMS`, `BENCH_UPLOAD_MB` change the sizes.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { connectStream } from '../client/src/connect-stream.ts';
import { sendPacedAudio } from '../client/src/send-paced-audio.ts';
import { createClient } from '../generated/client/client/index.ts';
import { ffmpegPath } from '../server/src/media/ffmpeg.ts';
import { writeBenchResult } from './result.ts';

const TASKS = Number(process.env.BENCH_TASKS ?? 8);
const STREAMS = Number(process.env.BENCH_STREAMS ?? 12);
const UPLOAD_MB = Number(process.env.BENCH_UPLOAD_MB ?? 25);
const root = new URL('../', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'scribe-bench-memory-'));
const librivox = '/usr/share/pocketsphinx/test/data/librivox';

function ffmpeg(args: string[]): void {
  execFileSync(ffmpegPath, ['-hide_banner', '-loglevel', 'error', '-y', ...args]);
}

const ids = readFileSync(join(librivox, 'fileids'), 'utf8').split('\n').filter(Boolean);
writeFileSync(join(dir, 'list.txt'), ids.map((id) => `file '${join(librivox, `${id}.wav`)}'`).join('\n'));
const readings = join(dir, 'readings.wav');
ffmpeg(['-f', 'concat', '-safe', '0', '-i', join(dir, 'list.txt'), readings]);
// A WAV of UPLOAD_MB (16 kHz mono s16le: 32 000 bytes per second), looped from the readings.
const big = join(dir, 'big.wav');
ffmpeg(['-stream_loop', '-1', '-i', readings, '-t', String((UPLOAD_MB * 1_000_000 - 44) / 32_000), big]);

const port = await new Promise<number>((resolve) => {
  const probe = createServer().listen(0, '127.0.0.1', () => {
    const { port: free } = probe.address() as { port: number };
    probe.close(() => resolve(free));
  });
});
const env = {
  ...process.env,
  NODE_ENV: 'production',
  PORT: String(port),
  HOST: '127.0.0.1',
  SCRIBE_DATA_DIR: join(dir, 'data'),
  SCRIBE_RATE_LIMIT_RPS: '0',
  SCRIBE_MAX_CONCURRENT_JOBS: String(TASKS + 2),
  SCRIBE_STREAM_MAX_SESSIONS: String(STREAMS + 1),
  LOG_LEVEL: 'warn',
};
delete (env as Record<string, string | undefined>).DATABASE_URL;
const server = spawn(process.execPath, ['--import', 'tsx', 'server/src/main.ts'], { cwd: root, env, stdio: 'inherit' });
const base = `http://127.0.0.1:${port}`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

for (let i = 0; ; i++) {
  if (i > 600) throw new Error('the server did not start');
  const ok = await fetch(`${base}/health`).then(
    (r) => r.ok,
    () => false,
  );
  if (ok) break;
  await sleep(100);
}
const created = JSON.parse(
  execFileSync(
    process.execPath,
    ['server/bin/scribe.mjs', 'admin', 'account', 'create', '--balance', '100000', '--json'],
    {
      cwd: root,
      env,
    },
  ).toString(),
) as { api_key: string };
const auth = { Authorization: `Bearer ${created.api_key}` };

/** The server's resident set in MB, from the kernel. */
function rssMb(): number {
  const status = readFileSync(`/proc/${server.pid}/status`, 'utf8');
  return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)![1]) / 1024;
}

/** Runs `work` while sampling RSS every 50 ms; the peak. */
async function peakDuring(work: () => Promise<unknown>): Promise<number> {
  let peak = rssMb();
  const timer = setInterval(() => (peak = Math.max(peak, rssMb())), 50);
  try {
    await work();
  } finally {
    clearInterval(timer);
  }
  return Math.max(peak, rssMb());
}

async function upload(path: string): Promise<string> {
  const form = new FormData();
  form.set('language', 'en');
  form.set('file', new Blob([readFileSync(path)]), 'audio.wav');
  const reply = await fetch(`${base}/v3/transcriptions/async/create`, { method: 'POST', headers: auth, body: form });
  const body = (await reply.json()) as { transcription_id?: string };
  if (reply.status !== 202) throw new Error(`upload: ${reply.status} ${JSON.stringify(body)}`);
  return body.transcription_id!;
}

async function completed(id: string): Promise<void> {
  for (;;) {
    const reply = await fetch(`${base}/v3/transcriptions/status/${id}`, { headers: auth });
    const { data } = (await reply.json()) as { data: { status: string } };
    if (data.status === 'completed') return;
    if (data.status === 'failed' || data.status === 'cancelled') throw new Error(JSON.stringify(data));
    await sleep(250);
  }
}

// 1. Idle: the engine workers load their model in the background after start.
await fetch(`${base}/v3/models`, { headers: auth });
await sleep(3000);
const idle = rssMb();

// 2. Async tasks.
const withTasks = await peakDuring(async () => {
  const tasks = await Promise.all(Array.from({ length: TASKS }, () => upload(readings)));
  await Promise.all(tasks.map(completed));
});
await sleep(1000);
const afterTasks = rssMb();

// 3. Live streams: goforward.raw twice with a pause, at real-time pace.
const speech = readFileSync('/usr/share/pocketsphinx/test/data/goforward.raw');
const signal = Buffer.concat([speech, Buffer.alloc(32_000), speech, Buffer.alloc(32_000)]);
const streamClient = createClient({ baseUrl: base, auth: () => created.api_key });
const withStreams = await peakDuring(() =>
  Promise.all(
    Array.from({ length: STREAMS }, async () => {
      const connection = await connectStream(streamClient, {
        session: { language: 'en', sample_rate: 16_000 },
        WebSocket,
        frameTimeoutMs: 30_000,
      });
      await sendPacedAudio(connection, signal);
      await connection.end();
    }),
  ),
);
await sleep(1000);

// 4. One large upload: growth from just before it until the server has answered.
const beforeUpload = rssMb();
const uploadBytes = statSync(big).size;
const withUpload = await peakDuring(() => upload(big));
const uploadGrowth = withUpload - beforeUpload;

server.kill('SIGTERM');
await new Promise((resolve) => server.once('exit', resolve));
rmSync(dir, { recursive: true, force: true });

const mb = (value: number) => `${value.toFixed(0)} MB`;
console.log(`server RSS (VmRSS of the server process, engine workers included)`);
console.log(`${'idle'.padEnd(24)}${mb(idle)}`);
console.log(`${`${TASKS} async tasks (peak)`.padEnd(24)}${mb(withTasks)} (after they completed: ${mb(afterTasks)})`);
console.log(`${`${STREAMS} live streams (peak)`.padEnd(24)}${mb(withStreams)}`);
console.log(
  `${(uploadBytes / 1_000_000).toFixed(1)} MB upload: ${mb(beforeUpload)} → peak ${mb(withUpload)}, growth ${mb(uploadGrowth)} (target < 30 MB: ${uploadGrowth < 30 ? 'met' : 'NOT met'})`,
);
writeBenchResult('memory', [
  { benchmark: 'memory: idle server RSS', measured: mb(idle), target: '(reported)', met: undefined },
  { benchmark: `memory: RSS with ${TASKS} async tasks`, measured: mb(withTasks), target: '(reported)', met: undefined },
  {
    benchmark: `memory: RSS with ${STREAMS} live streams`,
    measured: mb(withStreams),
    target: '(reported)',
    met: undefined,
  },
  {
    benchmark: `memory: RSS growth, ${UPLOAD_MB} MB upload`,
    measured: mb(uploadGrowth),
    target: '< 30 MB',
    met: uploadGrowth < 30,
  },
]);
