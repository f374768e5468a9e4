// `npm run bench`: every benchmark, one after the other (each in its own process, its own report printed as it runs),
// then one summary table: benchmark, measured, target, met. Durations are short by default so the whole run takes
// minutes; any BENCH_* variable set in the environment wins over these defaults (e.g. BENCH_SECONDS=10
// BENCH_ROUNDS=5 for longer HTTP rounds). `BENCH_ONLY=http,stt` runs a subset. Not part of `npm test`.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BenchRow } from './result.ts';

interface Benchmark {
  name: string;
  script: string;
  /** Short defaults, used only where the environment does not set the variable. */
  defaults: Record<string, string>;
  /** Rows for benchmarks that do not write BENCH_RESULT_FILE, read from what they print. */
  parse?: (stdout: string) => BenchRow[];
}

const number = (text: string, pattern: RegExp): number | undefined => {
  const match = pattern.exec(text);
  return match ? Number(match[1]) : undefined;
};
/** A printed 95 % interval of a median, shown after the value (nothing when the benchmark printed none). */
const intervalOf = (text: string, pattern: RegExp): string => {
  const match = pattern.exec(text);
  return match ? ` (95 % interval ${match[1]})` : '';
};

/** A row from a printed number; `measured` says "not printed" when the benchmark's output changed. */
function row(benchmark: string, value: number | undefined, unit: string, target: string, met?: (v: number) => boolean) {
  if (value === undefined || Number.isNaN(value)) return { benchmark, measured: 'not printed', target, met: false };
  return { benchmark, measured: `${value}${unit}`, target, met: met ? met(value) : undefined };
}

const benchmarks: Benchmark[] = [
  { name: 'http', script: 'bench/http.ts', defaults: {} },
  { name: 'stt', script: 'bench/stt.ts', defaults: { BENCH_TASKS: '8' } },
  {
    name: 'stt-engine',
    script: 'bench/stt-engine.ts',
    defaults: { BENCH_ROUNDS: '2' },
    parse: (out) => [
      row('stt-engine: 1 worker / bare decoder', number(out, /1 worker \/ baseline: ([\d.]+)/), '', '(reported)'),
      row('stt-engine: all workers / 1 worker', number(out, /workers \/ 1 worker: ([\d.]+)/), '', '(reported)'),
    ],
  },
  {
    name: 'stream',
    script: 'bench/stream.ts',
    defaults: { BENCH_UTTERANCES: '2', BENCH_MAX_SESSIONS: '8' },
    parse: (out) => [
      row(
        'stream: (a) end of speech → final, p50',
        number(out, /^\(a\)[^\n]*?p50 (\d+) ms/m),
        ' ms',
        '≤ 400 ms',
        (v) => v <= 400,
      ),
      row(
        'stream: (b) partial interval, p95',
        number(out, /^\(b\)[^\n]*?p95 (\d+) ms/m),
        ' ms',
        '≤ 300 ms',
        (v) => v <= 300,
      ),
      row('stream: (c) sessions, every final ≤ 1 s', number(out, /^\(c\) sustained: (\d+)/m), '', '≥ 4', (v) => v >= 4),
      row(
        'stream: (e) final p95 under batch load / alone',
        number(out, /^\(e\)[^\n]*?under load \/ alone ([\d.]+)/m),
        '',
        '(reported)',
      ),
    ],
  },
  {
    name: 'chat',
    script: 'bench/chat.ts',
    // Its own defaults (101 rounds of 256 tokens, ≈ 70 s): with 128 tokens an answer takes ≈ 0.1 s, and the request's
    // own start (≈ 5 ms, the time-to-first-token row) was 5 % of the tokens/s row by itself.
    defaults: {},
    parse: (out) => [
      row(
        'chat: tokens/s, API / direct (remote-like client)',
        number(out, /^ratio ([\d.]+)/m),
        intervalOf(out, /^ratio [\d.]+ \(95 % interval ([\d.]+–[\d.]+)/m),
        '≥ 0.95',
        (v) => v >= 0.95,
      ),
      row(
        'chat: tokens/s, API / direct (co-located client)',
        number(out, /^co-located client \(reported\): ratio ([\d.]+)/m),
        intervalOf(out, /^co-located client \(reported\): ratio [\d.]+ \(95 % interval ([\d.]+–[\d.]+)/m),
        '(reported)',
      ),
      row(
        'chat: added time to first token',
        number(out, /^ratio [^\n]*added time to first token (-?[\d.]+) ms/m),
        ' ms',
        '≤ 20 ms',
        (v) => v <= 20,
      ),
    ],
  },
  {
    name: 'embeddings',
    script: 'bench/embeddings.ts',
    defaults: { BENCH_ROUNDS: '3' },
    parse: (out) => [
      row('embeddings: API float / engine', number(out, /float ([\d.]+), base64/), '', '(reported)'),
      row('embeddings: API base64 / engine', number(out, /base64 ([\d.]+); library/), '', '(reported)'),
    ],
  },
  { name: 'batch-load', script: 'bench/batch-load.ts', defaults: {} },
  { name: 'memory', script: 'bench/memory.ts', defaults: {} },
  { name: 'scale', script: 'bench/scale.ts', defaults: { BENCH_TASKS: '8' } },
];

const only = process.env.BENCH_ONLY?.split(',').map((s) => s.trim());
const root = new URL('../', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'scribe-bench-all-'));
const rows: BenchRow[] = [];
const started = new Date();

for (const bench of benchmarks.filter((b) => !only || only.includes(b.name))) {
  const resultFile = join(dir, `${bench.name}.json`);
  const env: NodeJS.ProcessEnv = { ...bench.defaults, ...process.env, BENCH_RESULT_FILE: resultFile };
  console.log(`\n=== ${bench.name} (${bench.script}) — load average ${loadavg()[0]!.toFixed(1)}`);
  const began = performance.now();
  const { code, stdout } = await new Promise<{ code: number | null; stdout: string }>((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', bench.script], {
      cwd: root,
      env,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      process.stdout.write(chunk);
    });
    child.on('close', (exitCode) => resolve({ code: exitCode, stdout: out }));
  });
  const seconds = ((performance.now() - began) / 1000).toFixed(0);
  if (code !== 0) {
    rows.push({
      benchmark: `${bench.name}: did not finish (exit ${code}, ${seconds} s)`,
      measured: '—',
      target: '—',
      met: false,
    });
    continue;
  }
  if (bench.parse) {
    rows.push(...bench.parse(stdout));
  } else {
    try {
      rows.push(...(JSON.parse(readFileSync(resultFile, 'utf8')) as { rows: BenchRow[] }).rows);
    } catch {
      rows.push({ benchmark: `${bench.name}: wrote no result`, measured: '—', target: '—', met: false });
    }
  }
}
rmSync(dir, { recursive: true, force: true });

const table = [
  ['benchmark', 'measured', 'target', 'met?'],
  ...rows.map((r) => [r.benchmark, r.measured, r.target, r.met === undefined ? '—' : r.met ? 'yes' : 'NO']),
];
const widths = table[0]!.map((_, column) => Math.max(...table.map((cells) => cells[column]!.length)));
const line = (cells: string[]) => `| ${cells.map((cell, i) => cell.padEnd(widths[i]!)).join(' | ')} |`;
console.log(
  `\nSummary (${started.toISOString().slice(0, 16).replace('T', ' ')} UTC, load average now ${loadavg()[0]!.toFixed(1)})`,
);
console.log(line(table[0]!));
console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
for (const cells of table.slice(1)) console.log(line(cells));
const missed = rows.filter((r) => r.met === false).length;
console.log(`\n${rows.length - missed} of ${rows.length} rows without a missed target`);
