// `npm run bench:batch-load`: what a client of chat and of the status route sees while batch transcription keeps
// every speech-engine thread busy, against the same server idle, in one run. The batch decoders run at
// SCRIBE_WORKER_NICE (19 unless set), so they should take only the CPU the rest leaves; run it again with
// SCRIBE_WORKER_NICE=0 for the server's own priority.
//   - load: 2 async transcriptions per decoder in flight (the LibriVox readings joined, ≈ 25 s), a new one as each
//     ends, status polled at 4 Hz;
//   - chat: non-streamed answers of 64 tokens from a generated GGUF (embedding 512, 8 layers: ≈ 250 tokens/s here, the
//     pace of a small real model rather than the tiny test model's), `BENCH_ANSWERS` (8) per phase, tokens/s median;
//   - status: GET /v3/transcriptions/status/{id} of a finished task every 50 ms meanwhile, p50/p99; a phase lasts
//     `BENCH_PHASE_SECONDS` (10) at least, so that the p99 has ≈ 300 requests behind it.
// Phases alternate idle, loaded, idle, loaded; the ratios are loaded / idle of the pooled phases.
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { createApp } from '../server/src/app.ts';
import { writeTinyModel } from '../server/src/chat/engine/tiny-model.ts';
import { loadConfig } from '../server/src/config.ts';
import { librivoxWav, transcribeAsync } from './batch-task.ts';
import { writeBenchResult } from './result.ts';

const ANSWERS = Number(process.env.BENCH_ANSWERS ?? 8);
const PHASE_MS = 1000 * Number(process.env.BENCH_PHASE_SECONDS ?? 10);
const dir = mkdtempSync(join(tmpdir(), 'scribe-bench-batch-load-'));
const modelPath = join(dir, 'model.gguf');
await writeTinyModel(modelPath, { embedding: 512, layers: 8 });

const wav = librivoxWav();

const config = loadConfig({
  ...process.env,
  NODE_ENV: 'production',
  SCRIBE_DATA_DIR: join(dir, 'data'),
  SCRIBE_RATE_LIMIT_RPS: '0',
  SCRIBE_MAX_CONCURRENT_JOBS: '100',
  SCRIBE_MINI_MODEL: modelPath,
  LOG_LEVEL: 'silent',
});
const app = await createApp(config, { logger: pino({ level: 'silent' }) });
await new Promise<void>((resolve) => app.server.listen(0, '127.0.0.1', resolve));
const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
const { api_key: key } = await app.services.accounts.create({ balance: 100_000_000 });
const auth = { Authorization: `Bearer ${key}` };

const transcribe = () => transcribeAsync(base, key!, wav);

/** Tokens per second of one answer, from sending the request to having the whole body. */
async function chatAnswer(): Promise<number> {
  const started = performance.now();
  const reply = await fetch(`${base}/v3/chat/completions/create`, {
    method: 'POST',
    headers: { ...auth, 'Content-Type': 'application/json' },
    body: JSON.stringify({
      model: 'service-mini',
      messages: [{ role: 'user', content: 'Summarise the meeting about the release plan.' }],
      temperature: 0,
      max_tokens: 64,
    }),
  });
  const body = (await reply.json()) as { usage: { completion_tokens: number } };
  if (reply.status !== 200) throw new Error(`chat: ${reply.status} ${JSON.stringify(body)}`);
  return body.usage.completion_tokens / ((performance.now() - started) / 1000);
}

const quantile = (values: number[], q: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))]!;

const finished = await transcribe(); // also the warm-up: the decoders load their model
await chatAnswer();
const decoders = config.transcription.workers;
const phases: Record<'idle' | 'loaded', { chat: number[]; status: number[] }> = {
  idle: { chat: [], status: [] },
  loaded: { chat: [], status: [] },
};
for (const loaded of [false, true, false, true]) {
  const phase = loaded ? phases.loaded : phases.idle;
  let running = true;
  const load = Array.from({ length: loaded ? 2 * decoders : 0 }, async () => {
    while (running) await transcribe();
  });
  if (loaded) await new Promise((resolve) => setTimeout(resolve, 2000)); // every decoder busy by then
  const poller = (async () => {
    while (running) {
      const started = performance.now();
      await (await fetch(`${base}/v3/transcriptions/status/${finished}`, { headers: auth })).json();
      phase.status.push(performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  const began = performance.now();
  for (let i = 0; i < ANSWERS; i++) phase.chat.push(await chatAnswer());
  // The status route's p99 needs more requests than the answers take: the phase lasts PHASE_MS at least.
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, PHASE_MS - (performance.now() - began))));
  running = false;
  await Promise.all([poller, ...load]);
}
await app.close();
rmSync(dir, { recursive: true, force: true });

const chatRatio = quantile(phases.loaded.chat, 0.5) / quantile(phases.idle.chat, 0.5);
const statusRatio = quantile(phases.loaded.status, 0.99) / quantile(phases.idle.status, 0.99);
console.log(
  `${decoders} batch decoders at nice ${config.transcription.workerNice}, ${2 * decoders} async tasks in flight`,
);
for (const [name, phase] of Object.entries(phases)) {
  console.log(
    `${name.padEnd(6)}: chat ${quantile(phase.chat, 0.5).toFixed(0)} tokens/s (median of ${phase.chat.length}); ` +
      `status p50 ${quantile(phase.status, 0.5).toFixed(1)} ms, p99 ${quantile(phase.status, 0.99).toFixed(1)} ms ` +
      `(${phase.status.length} requests)`,
  );
}
console.log(
  `chat tokens/s, loaded / idle: ${chatRatio.toFixed(2)}; status p99, loaded / idle: ${statusRatio.toFixed(2)}`,
);
const reported = { target: '(reported)', met: undefined };
writeBenchResult('batch-load', [
  { benchmark: 'batch load: chat tokens/s, loaded / idle', measured: chatRatio.toFixed(2), ...reported },
  { benchmark: 'batch load: status p99, loaded / idle', measured: statusRatio.toFixed(2), ...reported },
]);
