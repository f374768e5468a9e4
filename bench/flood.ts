// `npm run bench:flood`: what one account sees while another floods the embedding engine, against the same server
// unflooded, in one run. The server runs as its own process (production mode, SQLite, the default rate limit of 10
// requests/s per account and the default per-account bounds), so the flood's client work does not share its event
// loop.
//   - flood (account A): FLOOD_BIG requests of 2,048 texts (≈ 170,000 tokens each, minutes of engine work) in
//     parallel, a new one as each ends, plus a stream of 64-text requests at 10 per second; A's answers are counted by
//     status (429s are A's bounds at work: its requests in progress, its rate limit);
//   - probe (account B): a one-word embedding and `GET /v3/models`, alternately, one at a time every 200 ms;
//     latency from sending to having the whole body.
// Phases: baseline (no flood) then flood, each BENCH_PHASE_SECONDS (30); B's p50/p95 per phase with a 95 % interval
// (order statistics, no assumption on the distribution), the flood / baseline ratio, and the server's resident memory
// (VmRSS) before and at its highest during the flood. Target: B's p95 within 1 s during the flood on 2 cores.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeBenchResult } from './result.ts';

const PHASE_MS = 1000 * Number(process.env.BENCH_PHASE_SECONDS ?? 30);
const FLOOD_BIG = Number(process.env.BENCH_FLOOD_BIG ?? 2);
const STREAM_RPS = 10;
const PROBE_EVERY_MS = 200;
const TARGET_P95_MS = 1000;
const ADMIN_TOKEN = 'bench-flood-admin-token-2e7c94';

// Texts of 60 words (≈ 80 tokens) from a fixed vocabulary with numbers, different from each other.
const vocabulary = 'the quick brown fox jumps over a lazy dog while prices rose again on monday morning'.split(' ');
const textOf = (i: number) =>
  Array.from({ length: 60 }, (_, j) => `${vocabulary[(i * 7 + j) % vocabulary.length]}${j % 5 ? '' : i + j}`).join(' ');
const bigBody = JSON.stringify({
  model: 'service-embedding',
  input: Array.from({ length: 2048 }, (_, i) => textOf(i)),
  encoding_format: 'base64',
});
const streamBody = JSON.stringify({
  model: 'service-embedding',
  input: Array.from({ length: 64 }, (_, i) => textOf(10_000 + i)),
  encoding_format: 'base64',
});
const oneWord = JSON.stringify({ model: 'service-embedding', input: 'hello' });

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });

const dir = mkdtempSync(join(tmpdir(), 'scribe-bench-flood-'));
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const server = spawn(process.execPath, ['server/bin/start.mjs'], {
  cwd: new URL('../', import.meta.url).pathname,
  env: {
    ...process.env,
    NODE_ENV: 'production',
    HOST: '127.0.0.1',
    PORT: String(port),
    SCRIBE_DATA_DIR: join(dir, 'data'),
    SCRIBE_ADMIN_TOKEN: ADMIN_TOKEN,
    SCRIBE_EMBEDDING_MODEL: '',
    LOG_LEVEL: 'silent',
  },
  stdio: ['ignore', 'ignore', 'inherit'],
});
const rssMb = () => {
  try {
    const line = readFileSync(`/proc/${server.pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+) kB/m);
    return line ? Number(line[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
};

async function until(ready: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await ready().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error('the server did not start');
}

async function account(): Promise<string> {
  const reply = await fetch(`${base}/admin/accounts`, {
    method: 'POST',
    headers: { 'X-Admin-Token': ADMIN_TOKEN, 'Content-Type': 'application/json' },
    body: JSON.stringify({ balance: 1_000_000 }),
  });
  const body = (await reply.json()) as { api_key?: string; data?: { api_key?: string } };
  const key = body.data?.api_key ?? body.api_key;
  if (!key) throw new Error(`admin: ${reply.status} ${JSON.stringify(body)}`);
  return key;
}

const embed = (key: string, body: string) =>
  fetch(`${base}/v3/embeddings/create`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body,
  });

/** Milliseconds from sending to having the whole body; a non-200 is an error (B stays within its own limits). */
async function timed(send: () => Promise<Response>): Promise<number> {
  const started = performance.now();
  const reply = await send();
  await reply.arrayBuffer();
  if (reply.status !== 200) throw new Error(`probe: ${reply.status}`);
  return performance.now() - started;
}

interface Probes {
  embedding: number[];
  models: number[];
}

async function probe(key: string, ms: number): Promise<Probes> {
  const probes: Probes = { embedding: [], models: [] };
  const until = performance.now() + ms;
  for (let i = 0; performance.now() < until; i++) {
    const started = performance.now();
    if (i % 2 === 0) probes.embedding.push(await timed(() => embed(key, oneWord)));
    else
      probes.models.push(
        await timed(() => fetch(`${base}/v3/models`, { headers: { Authorization: `Bearer ${key}` } })),
      );
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, PROBE_EVERY_MS - (performance.now() - started))));
  }
  return probes;
}

/**
 * A quantile and its 95 % interval: of n values in order, the true q-quantile lies between the values ranked
 * ⌊nq − 1.96·√(nq(1−q))⌋ and ⌈1 + nq + 1.96·√(nq(1−q))⌉ with a probability of about 95 % whatever the distribution
 * (the count of values below it is binomial; Conover, Practical Nonparametric Statistics).
 */
function quantile(values: number[], q: number): { value: number; low: number; high: number } {
  const sorted = [...values].sort((a, b) => a - b);
  const n = sorted.length;
  const spread = 1.96 * Math.sqrt(n * q * (1 - q));
  const at = (rank: number) => sorted[Math.min(n, Math.max(1, rank)) - 1]!;
  return {
    value: at(Math.ceil(n * q)),
    low: at(Math.floor(n * q - spread)),
    high: at(Math.ceil(1 + n * q + spread)),
  };
}
const show = (values: number[], q: number) => {
  const { value, low, high } = quantile(values, q);
  return `${value.toFixed(0)} ms (95 % interval ${low.toFixed(0)}–${high.toFixed(0)})`;
};

try {
  await until(async () => (await fetch(`${base}/health`)).status === 200, 60_000);
  const [flooder, prober] = [await account(), await account()];
  await timed(() => embed(prober, oneWord)); // loads the model
  const rssBefore = rssMb();

  const baseline = await probe(prober, PHASE_MS);

  let flooding = true;
  const statuses = new Map<string, number>();
  const count = (what: string): void => {
    statuses.set(what, (statuses.get(what) ?? 0) + 1);
  };
  const record = (big: boolean) => async (reply: Response) => {
    await reply.arrayBuffer();
    count(`${big ? 'big' : 'stream'} ${reply.status}`);
  };
  const failed = (big: boolean) => () => count(`${big ? 'big' : 'stream'} failed`);
  const big = Array.from({ length: FLOOD_BIG }, async () => {
    while (flooding) {
      await embed(flooder, bigBody).then(record(true), failed(true));
      await new Promise((resolve) => setTimeout(resolve, 100)); // a refused one is not re-sent in a tight loop
    }
  });
  const stream: Promise<void>[] = [];
  const streamer = setInterval(() => {
    stream.push(embed(flooder, streamBody).then(record(false), failed(false)));
  }, 1000 / STREAM_RPS);
  let rssPeak = rssBefore;
  const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, rssMb())), 500);
  await new Promise((resolve) => setTimeout(resolve, 2000)); // the flood under way
  const flooded = await probe(prober, PHASE_MS);
  flooding = false;
  clearInterval(streamer);
  clearInterval(sampler);

  const cores = availableParallelism();
  console.log(
    `${cores} cores; flood: ${FLOOD_BIG} requests of 2048 texts (≈ 170,000 tokens) in parallel + 64 texts at ` +
      `${STREAM_RPS}/s from account A; probe: account B every ${PROBE_EVERY_MS} ms; phases of ${PHASE_MS / 1000} s`,
  );
  for (const [name, probes] of [
    ['baseline', baseline],
    ['flood', flooded],
  ] as const) {
    console.log(
      `${name.padEnd(8)}: one-word embedding p50 ${show(probes.embedding, 0.5)}, p95 ${show(probes.embedding, 0.95)} ` +
        `[${probes.embedding.length}]; models p50 ${show(probes.models, 0.5)}, p95 ${show(probes.models, 0.95)} ` +
        `[${probes.models.length}]`,
    );
  }
  const p95 = (values: number[]) => quantile(values, 0.95).value;
  const embeddingRatio = p95(flooded.embedding) / p95(baseline.embedding);
  const modelsRatio = p95(flooded.models) / p95(baseline.models);
  console.log(`p95 flood / baseline: embedding ${embeddingRatio.toFixed(1)}, models ${modelsRatio.toFixed(1)}`);
  console.log(
    `account A's answers during the flood: ${[...statuses].map(([what, n]) => `${what} × ${n}`).join(', ') || 'none'}`,
  );
  console.log(`server RSS: ${rssBefore.toFixed(0)} MB before the flood, ${rssPeak.toFixed(0)} MB at most during it`);
  const met = p95(flooded.embedding) <= TARGET_P95_MS && p95(flooded.models) <= TARGET_P95_MS;
  console.log(`target: B's p95 ≤ ${TARGET_P95_MS} ms during the flood: ${met ? 'met' : 'MISSED'}`);
  writeBenchResult('flood', [
    {
      benchmark: 'flood: other account p95, one-word embedding / models',
      measured: `${p95(flooded.embedding).toFixed(0)} / ${p95(flooded.models).toFixed(0)} ms`,
      target: `≤ ${TARGET_P95_MS} ms`,
      met,
    },
    {
      benchmark: 'flood: other account p95, flood / baseline',
      measured: `${embeddingRatio.toFixed(1)} / ${modelsRatio.toFixed(1)}`,
      target: '(reported)',
      met: undefined,
    },
  ]);
  // The big requests still running are abandoned with the server.
  await Promise.race([Promise.all([...big, ...stream]), new Promise((resolve) => setTimeout(resolve, 1000))]);
} finally {
  server.kill('SIGTERM');
  await new Promise((resolve) => server.once('exit', resolve));
  rmSync(dir, { recursive: true, force: true });
}
