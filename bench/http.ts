// `npm run bench:http`: the reference server's GET /v3/transcriptions/status/{id} (routing, Bearer auth, the rate
// limit disabled, one DB read, production mode so responses are not validated) against a bare Koa route doing the
// same DB read and returning the same JSON, in one run on the same database (bench/http-servers.ts, a process of its
// own). Prints requests/s, p50/p99, the server process's CPU time per request, and the ratios.
//
// `npm run bench:http -- --against <commit>` also loads the servers of that commit (its tree exported with `git
// archive` under the temporary folder, with a hard-linked copy of node_modules when its dependencies are this
// checkout's, else its own `npm install`) in the same rounds, so the head and that commit are compared on the same
// machine in the same minutes. `--profile <dir>` writes a V8 CPU profile of each servers process there
// (node --cpu-prof), to see where a request's time goes.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import { execFile } from 'node:child_process';
import { writeBenchResult } from './result.ts';

const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
const duration = Number(process.env.BENCH_SECONDS ?? 3);
const rounds = Number(process.env.BENCH_ROUNDS ?? 8);
const { values: options } = parseArgs({ options: { against: { type: 'string' }, profile: { type: 'string' } } });
const here = fileURLToPath(new URL('..', import.meta.url));

/** The tree of a commit under the temporary folder, ready to run (made once per commit, kept for the next run). */
function checkoutOf(commit: string): { dir: string; label: string } {
  const git = (...args: string[]) => execFileSync('git', args, { cwd: here, encoding: 'utf8' }).trim();
  const sha = git('rev-parse', '--verify', `${commit}^{commit}`);
  const dir = join(tmpdir(), `scribe-bench-${sha.slice(0, 12)}`);
  if (!existsSync(join(dir, 'package.json'))) {
    mkdirSync(dir, { recursive: true });
    execFileSync('sh', ['-c', `git archive ${sha} | tar -x -C '${dir}'`], { cwd: here, stdio: 'inherit' });
  }
  if (!existsSync(join(dir, 'node_modules'))) {
    const dependencies = (root: string) =>
      JSON.stringify(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).dependencies);
    if (dependencies(dir) === dependencies(here)) {
      // Hard links: nothing here writes into an installed file (the cache folder, which is written, is left out).
      execFileSync('cp', ['-al', join(here, 'node_modules'), join(dir, 'node_modules')]);
      execFileSync('rm', ['-rf', join(dir, 'node_modules/.cache')]);
    } else {
      console.log(`${sha.slice(0, 7)} has other dependencies than this checkout: npm install in ${dir}`);
      execFileSync('npm', ['install', '--no-audit', '--no-fund'], { cwd: dir, stdio: 'inherit' });
    }
  }
  return { dir, label: git('log', '-1', '--format=%h', sha) };
}

interface Servers {
  label: string;
  process: ChildProcess;
  scribeUrl: string;
  bareUrl: string;
  headers: Record<string, string>;
}

/** Starts a checkout's servers process and waits for its one JSON line. */
async function startServers(dir: string, label: string): Promise<Servers> {
  const profile = options.profile ? ['--cpu-prof', '--cpu-prof-dir', resolve(options.profile)] : [];
  const child = spawn(process.execPath, [...profile, '--import', 'tsx', join(here, 'bench/http-servers.ts'), dir], {
    cwd: dir,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout! });
  const first = await new Promise<string>((done, fail) => {
    lines.once('line', done);
    child.once('exit', (code) => fail(new Error(`the servers of ${label} exited (${code}) before listening`)));
  });
  return { label, process: child, ...(JSON.parse(first) as Omit<Servers, 'label' | 'process'>) };
}

/**
 * CPU seconds a process has used so far, all its threads, in user space and in the kernel (utime and stime of
 * /proc/PID/stat, 1/100 s ticks): a V8 profile sees only the first, the sockets' system calls are the second.
 */
function cpuSecondsOf(pid: number): { user: number; kernel: number } {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return { user: Number(fields[11]) / 100, kernel: Number(fields[12]) / 100 };
}

interface Run {
  rps: number;
  p50: number;
  p99: number;
  /** The servers process's CPU time per request, in microseconds. */
  cpuUs: number;
  /** Of which in user space (JavaScript, V8, libuv) and in the kernel (system calls), in microseconds. */
  userUs: number;
  kernelUs: number;
}

// The load generator (autocannon) runs as its own process so it does not share the servers' event loop (2 cores: one
// for the server, one for the client); it reports p50 and p99 from every response's latency (bench/load-generator.mjs).
async function load(
  name: string,
  servers: Servers,
  url: string,
  headers: Record<string, string> = {},
  seconds = duration,
): Promise<Run> {
  const headerArgs = Object.entries(headers).map(([k, v]) => `${k}=${v}`);
  const generator = join(here, 'bench/load-generator.mjs');
  const args = [generator, url, String(connections), String(seconds), ...headerArgs];
  const cpuBefore = cpuSecondsOf(servers.process.pid!);
  const { stdout } = await promisify(execFile)(process.execPath, args, { maxBuffer: 64 * 1024 * 1024 });
  const cpuAfter = cpuSecondsOf(servers.process.pid!);
  const user = cpuAfter.user - cpuBefore.user;
  const kernel = cpuAfter.kernel - cpuBefore.kernel;
  const result = JSON.parse(stdout) as {
    rps: number;
    p50: number;
    p99: number;
    requests: number;
    non2xx: number;
    errors: number;
  };
  if (result.non2xx > 0 || result.errors > 0 || result.requests === 0)
    throw new Error(`${name}: ${result.requests} requests, ${result.non2xx} non-2xx, ${result.errors} errors`);
  const perRequest = (seconds: number) => (seconds * 1e6) / result.requests;
  return {
    rps: result.rps,
    p50: result.p50,
    p99: result.p99,
    cpuUs: perRequest(user + kernel),
    userUs: perRequest(user),
    kernelUs: perRequest(kernel),
  };
}

const runBare = (servers: Servers) => load(`${servers.label} bare`, servers, servers.bareUrl);
const runScribe = (servers: Servers) => load(`${servers.label} scribe`, servers, servers.scribeUrl, servers.headers);

/** The median, and an interval holding it with at least 95 % confidence from the order statistics (or all values). */
function medianWithInterval(values: number[]): { median: number; low: number; high: number; confidence: number } {
  const sorted = [...values].sort((a, b) => a - b);
  const n = sorted.length;
  const choose = (k: number) => {
    let c = 1;
    for (let i = 0; i < k; i += 1) c = (c * (n - i)) / (i + 1);
    return c;
  };
  // The median lies between the k-th smallest and the k-th largest with probability 1 - 2·P(Binomial(n, ½) < k).
  const below = (k: number) => Array.from({ length: k }, (_, i) => choose(i)).reduce((a, b) => a + b, 0) / 2 ** n;
  let k = 1;
  while (k + 1 <= n / 2 && 1 - 2 * below(k + 1) >= 0.95) k += 1;
  return {
    median: sorted[Math.floor(n / 2)]!,
    low: sorted[k - 1]!,
    high: sorted[n - k]!,
    confidence: 1 - 2 * below(k),
  };
}

const head = await startServers(
  here,
  `${execFileSync('git', ['log', '-1', '--format=%h'], { cwd: here, encoding: 'utf8' }).trim()} (head)`,
);
const against = options.against ? checkoutOf(options.against) : undefined;
const old = against ? await startServers(against.dir, against.label) : undefined;
const sides = old ? [old, head] : [head];

// The machine is shared and its speed drifts from one few-second stretch to the next (one 6-round run of 5 s rounds
// gave bare Koa 5908–9348 req/s), so a checkout's two targets run in pairs of neighbouring runs, bare first in odd
// rounds and scribe first in even ones, and with --against the two checkouts' pairs alternate which goes first (a
// drift favours no side); each pair gives its own ratios and each round its head / commit ratios, and the medians are
// the results: a burst from elsewhere that hits one run moves one ratio, not the median. A short warm-up of each
// target (JIT, connections, the database's pages) comes first and is not counted. CPU time per request is the
// servers process's own (all threads), which other work on the machine slows less than it slows the clock.
const warmUpSeconds = Math.max(duration, 3);
for (const servers of sides) {
  await load('warm-up', servers, servers.bareUrl, {}, warmUpSeconds);
  await load('warm-up', servers, servers.scribeUrl, servers.headers, warmUpSeconds);
}
const pairs = new Map<Servers, { bare: Run; scribe: Run }[]>(sides.map((servers) => [servers, []]));
for (let round = 1; round <= rounds; round += 1) {
  const order = round % 2 === 1 ? sides : [...sides].reverse();
  for (const servers of order) {
    const bareFirst = Math.ceil(round / 2) % 2 === 1;
    const first = bareFirst ? await runBare(servers) : await runScribe(servers);
    const second = bareFirst ? await runScribe(servers) : await runBare(servers);
    pairs.get(servers)!.push(bareFirst ? { bare: first, scribe: second } : { bare: second, scribe: first });
  }
}

const format = (values: number[], digits: number) => {
  const { median, low, high, confidence } = medianWithInterval(values);
  return `${median.toFixed(digits)} (${low.toFixed(digits)}–${high.toFixed(digits)}, ${Math.round(confidence * 100)} %)`;
};
console.log(
  `connections=${connections} duration=${duration}s rounds=${rounds} ` +
    `database=${process.env.DATABASE_URL ? 'postgres' : 'sqlite'}; medians with their intervals (confidence)`,
);
const summaries = new Map<Servers, { rps: number; p99: number; cpu: number; p99Bare: number; cpuBare: number }>();
for (const servers of sides) {
  const runs = pairs.get(servers)!;
  for (const side of ['bare', 'scribe'] as const) {
    const of = (key: keyof Run) => runs.map((pair) => pair[side][key]);
    console.log(
      `${servers.label.padEnd(14)} ${side.padEnd(6)} req/s ${format(of('rps'), 0)}  p50 ${format(of('p50'), 2)} ms  ` +
        `p99 ${format(of('p99'), 2)} ms  CPU ${format(of('cpuUs'), 1)} µs/request ` +
        `(user ${format(of('userUs'), 1)}, kernel ${format(of('kernelUs'), 1)})`,
    );
  }
  const ratios = (key: keyof Run) => runs.map((pair) => pair.scribe[key] / pair.bare[key]);
  console.log(
    `${servers.label.padEnd(14)} scribe / bare: req/s ${format(ratios('rps'), 2)}  p99 ${format(ratios('p99'), 2)}  ` +
      `CPU per request ${format(ratios('cpuUs'), 2)}`,
  );
  console.log(
    `${' '.repeat(15)}per-pair p99 ratios: ${ratios('p99')
      .map((r) => r.toFixed(2))
      .join(' ')}`,
  );
  const median = (values: number[]) => medianWithInterval(values).median;
  summaries.set(servers, {
    rps: median(ratios('rps')),
    p99: median(ratios('p99')),
    cpu: median(ratios('cpuUs')),
    p99Bare: median(runs.map((pair) => pair.bare.p99)),
    cpuBare: median(runs.map((pair) => pair.bare.cpuUs)),
  });
}
if (old) {
  const headRuns = pairs.get(head)!;
  const oldRuns = pairs.get(old)!;
  const perRound = (of: (pair: { bare: Run; scribe: Run }) => number) =>
    headRuns.map((pair, i) => of(pair) / of(oldRuns[i]!));
  console.log(
    `head / ${old.label}, per round: scribe CPU per request ${format(
      perRound((pair) => pair.scribe.cpuUs),
      2,
    )}, ` +
      `scribe p99 ${format(
        perRound((pair) => pair.scribe.p99),
        2,
      )}, bare CPU per request ` +
      `${format(
        perRound((pair) => pair.bare.cpuUs),
        2,
      )}`,
  );
  console.log(
    `head / ${old.label}, per round: scribe user CPU per request ${format(
      perRound((pair) => pair.scribe.userUs),
      2,
    )}, scribe kernel CPU per request ${format(
      perRound((pair) => pair.scribe.kernelUs),
      2,
    )}`,
  );
}

const mine = summaries.get(head)!;
const headRuns = pairs.get(head)!;
const medianOf = (values: number[]) => medianWithInterval(values).median;
console.log(`req/s scribe / bare, median of ${rounds} pairs: ${mine.rps.toFixed(2)}  (target ≥ 0.8)`);
console.log(`p99 scribe / bare, median of ${rounds} pairs: ${mine.p99.toFixed(2)}  (target ≤ 1.25)`);
writeBenchResult('http', [
  { benchmark: 'http: req/s, scribe / bare Koa', measured: mine.rps.toFixed(2), target: '≥ 0.8', met: mine.rps >= 0.8 },
  {
    benchmark: 'http: p99, scribe / bare Koa',
    measured: `${mine.p99.toFixed(2)} (medians ${medianOf(headRuns.map((p) => p.scribe.p99))} / ${mine.p99Bare} ms)`,
    target: '≤ 1.25',
    met: mine.p99 <= 1.25,
  },
  {
    benchmark: 'http: server CPU per request, scribe / bare Koa',
    measured: `${mine.cpu.toFixed(2)} (medians ${medianOf(headRuns.map((p) => p.scribe.cpuUs)).toFixed(0)} / ${mine.cpuBare.toFixed(0)} µs)`,
    target: '',
    met: undefined,
  },
]);
for (const servers of sides) {
  const exited = new Promise((done) => servers.process.once('exit', done));
  servers.process.stdin!.end();
  await exited;
}
