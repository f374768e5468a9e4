// The two servers bench:http loads, in one process of their own: the reference server's app (production mode, the
// rate limit off, the log silent) and a bare Koa route doing the same store read and returning the same JSON, on one
// fresh SQLite database holding one completed task (DATABASE_URL for PostgreSQL). The code is that of the checkout
// named by the first argument (default: this one), so bench/http.ts can load the head and an older commit's worktree
// side by side. Prints one JSON line ({ scribeUrl, bareUrl, headers }) once both listen and the process is idle, and
// runs until stdin closes.
// Usage: node --import tsx bench/http-servers.ts [CHECKOUT]
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import Koa from 'koa';
import { pino } from 'pino';
import type * as AppModule from '../server/src/app.ts';
import type * as ConfigModule from '../server/src/config.ts';
import type * as StoreModule from '../server/src/transcriptions/store.ts';

const checkout = resolve(process.argv[2] ?? fileURLToPath(new URL('..', import.meta.url)));
const from = (path: string) => import(pathToFileURL(join(checkout, path)).href);
const { createApp } = (await from('server/src/app.ts')) as typeof AppModule;
const { loadConfig } = (await from('server/src/config.ts')) as typeof ConfigModule;
const { createTranscriptionStore, toTranscription } = (await from(
  'server/src/transcriptions/store.ts',
)) as typeof StoreModule;

const dataDir = mkdtempSync(join(tmpdir(), 'scribe-bench-'));
const config = loadConfig({
  ...process.env,
  NODE_ENV: 'production',
  SCRIBE_DATA_DIR: dataDir,
  SCRIBE_RATE_LIMIT_RPS: '0',
  LOG_LEVEL: 'silent',
});
const app = await createApp(config, { logger: pino({ level: 'silent' }) });
const created = await app.services.accounts.create({ balance: 100 });
const id = '0b6e7f52-3c1d-4e8a-9f20-5a7b8c9d0e1f';
const at = new Date().toISOString();
await app.db('transcriptions').insert({
  id,
  account_id: created.account.id,
  status: 'completed',
  mode: 'sync',
  api_version: 'v3',
  priority: 'lightning',
  source_type: 'upload',
  filename: 'goforward.wav',
  file_size: 111_740,
  language: 'en',
  diarization: false,
  duration_seconds: 3.49,
  minutes_billed: 1,
  cost_minor: 200,
  progress: 100,
  output: JSON.stringify({ format: 'json', word_timestamps: true }),
  result: JSON.stringify({
    text: 'go forward ten meters',
    duration: 3.49,
    language: 'en',
    words: [
      { word: 'go', start: 0.46, end: 0.63 },
      { word: 'forward', start: 0.64, end: 1.16 },
      { word: 'ten', start: 1.17, end: 1.52 },
      { word: 'meters', start: 1.53, end: 2.18 },
    ],
  }),
  created_at: at,
  started_at: at,
  completed_at: at,
});

await new Promise<void>((done) => app.server.listen(0, '127.0.0.1', done));
const scribeUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/v3/transcriptions/status/${id}`;

// Baseline: the same read (the same store function on the same database) and the same JSON with nothing else.
const store = createTranscriptionStore(app.db);
const bare = new Koa();
bare.use(async (ctx) => {
  const row = await store.find(created.account.id, ctx.path.split('/').pop()!);
  ctx.body = { data: toTranscription(row!) };
});
const bareServer = createServer(bare.callback());
await new Promise<void>((done) => bareServer.listen(0, '127.0.0.1', done));
const bareUrl = `http://127.0.0.1:${(bareServer.address() as AddressInfo).port}/status/${id}`;

// Ready once the process is idle: in production the app compiles its request validators in the background after it
// starts, which would otherwise be counted in the first runs' CPU time per request.
for (let waited = 0; waited < 120_000; waited += 300) {
  const before = process.cpuUsage();
  await new Promise((done) => setTimeout(done, 300));
  const used = process.cpuUsage(before);
  if ((used.user + used.system) / 1000 < 30) break;
}
console.log(JSON.stringify({ scribeUrl, bareUrl, headers: { Authorization: `Bearer ${created.api_key}` } }));

let closing = false;
async function close() {
  if (closing) return;
  closing = true;
  bareServer.close();
  await app.close();
  rmSync(dataDir, { recursive: true, force: true });
  process.exit(0);
}
process.stdin.on('end', close).resume();
process.on('SIGTERM', close);
