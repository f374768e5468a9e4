// `npm test`: runs every *.test.ts (uvu suites) in its own Node process with tsx and ends with the line
// `N passed, N failed` that CI reads (uvu prints only Total/Passed/Skipped). A test file that crashes before printing
// its summary counts as one failure. Optional arguments filter files by substring.
//
// Before the tests: the Debian packages the tests use are installed when that can be done unattended (or one line says
// what is missing), and when no PostgreSQL answers at SCRIBE_TEST_POSTGRES_URL a throwaway one is started for the run
// (server/src/test-support/throwaway-postgres.ts) and handed to every file, so the PostgreSQL variants always run.
//
// Files run in parallel, one per core (SCRIBE_TEST_JOBS overrides): each file makes its own temporary data dirs,
// PostgreSQL databases and free ports, so files share nothing but the machine (the few that time the machine itself run
// alone, see runAlone). Each file's output is printed as one
// block when it ends, headed by its wall time and CPU time (its own and its children's: the run is bound by CPU). The longest files (by the previous run's times, kept in node_modules/.cache) start first.
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { register } from 'tsx/esm/api';
import { root } from './spec-tools.mjs';
import { ensurePackages, testPackages } from './system-packages.mjs';

const roots = ['test', 'server', 'conformance'];
/**
 * Files that measure time on the machine itself and so run with no other file beside them (after the others): the
 * embedding engine's event-loop lag bound, and a killed server's stream lease being swept by another process within a
 * deadline (both failed when another test file loaded the two cores at the same time).
 */
const runAlone = new Set(['server/src/embeddings/use-lite/engine.test.ts', 'server/src/streaming/dead-server.test.ts']);
const skipDirs = new Set(['node_modules', 'generated', 'site', 'data']);
const timesFile = join(root, 'node_modules/.cache/scribe-test-times.json');

function findTests(dir, found = []) {
  let entries;
  try {
    entries = readdirSync(dir);
  } catch {
    return found;
  }
  for (const entry of entries.sort()) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) {
      if (!skipDirs.has(entry)) findTests(path, found);
    } else if (entry.endsWith('.test.ts')) {
      found.push(path);
    }
  }
  return found;
}

function readTimes() {
  try {
    return JSON.parse(readFileSync(timesFile, 'utf8'));
  } catch {
    return {};
  }
}

/** The PostgreSQL the tests use: the configured one when it answers, else a throwaway one for this run. */
async function testPostgres() {
  register(); // the helper is TypeScript, shared with the test harness
  const { postgresAnswers, startThrowawayPostgres } = await import('../server/src/test-support/throwaway-postgres.ts');
  const configured = process.env.SCRIBE_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  if (await postgresAnswers(configured)) return { url: configured, stop: async () => undefined };
  try {
    const server = await startThrowawayPostgres({ stopOnExit: true });
    console.log(`No PostgreSQL answers at ${configured}: started a throwaway PostgreSQL for this run (${server.url}).`);
    return server;
  } catch (error) {
    console.log(`No PostgreSQL answers at ${configured}, and a throwaway one did not start: ${error.message}`);
    return { url: configured, stop: async () => undefined };
  }
}

/**
 * CPU seconds (user + system) of every child this process has reaped so far, from /proc/self/stat (cutime + cstime,
 * in clock ticks of 1/100 s on Linux); undefined where there is no /proc. A child's CPU is added when it is reaped and
 * includes its own reaped children (the servers and tools a test file starts), so the growth read at one file's
 * `exit` is that file's CPU even with other files running beside it (two files ending in the same instant would
 * share it).
 */
function childrenCpuSeconds() {
  try {
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
    return (Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    return undefined;
  }
}
let cpuSeen = childrenCpuSeconds();

function runFile(file, env) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(process.execPath, ['--import', 'tsx', file], {
      cwd: root,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    let cpu;
    child.once('exit', () => {
      const now = childrenCpuSeconds();
      if (now !== undefined && cpuSeen !== undefined) [cpu, cpuSeen] = [now - cpuSeen, now];
    });
    child.once('close', (status, signal) => resolve({ status, signal, stdout, stderr, ms: Date.now() - started, cpu }));
  });
}

const filters = process.argv.slice(2);
const files = roots
  .flatMap((dir) => findTests(join(root, dir)))
  .filter((file) => filters.length === 0 || filters.some((f) => file.includes(f)));

ensurePackages(testPackages, 'the tests');
const postgres = files.length > 0 ? await testPostgres() : undefined;

const previousTimes = readTimes();
const times = { ...previousTimes };
const alone = files.filter((file) => runAlone.has(relative(root, file)));
const queue = files
  .filter((file) => !runAlone.has(relative(root, file)))
  .sort((a, b) => (previousTimes[relative(root, b)] ?? Infinity) - (previousTimes[relative(root, a)] ?? Infinity));
const jobs = Math.max(1, Number(process.env.SCRIBE_TEST_JOBS) || availableParallelism());
const env = {
  ...process.env,
  NO_COLOR: '1',
  FORCE_COLOR: '0',
  ...(postgres ? { SCRIBE_TEST_POSTGRES_URL: postgres.url } : {}),
};

let passed = 0;
let failed = 0;
let skipped = 0;
let cpuTotal = 0;
const broken = [];

function record(name, result) {
  times[name] = result.ms;
  cpuTotal += result.cpu ?? 0;
  const cpu = result.cpu === undefined ? '' : `, ${result.cpu.toFixed(1)} s CPU`;
  console.log(`\n=== ${name} (${(result.ms / 1000).toFixed(1)} s${cpu})`);
  process.stdout.write(result.stdout);
  process.stderr.write(result.stderr);
  const out = stripVTControlCharacters(result.stdout);
  const total = Number(out.match(/Total:\s+(\d+)/)?.[1] ?? NaN);
  const ok = Number(out.match(/Passed:\s+(\d+)/)?.[1] ?? NaN);
  const skip = Number(out.match(/Skipped:\s+(\d+)/)?.[1] ?? 0);
  if (Number.isNaN(total) || Number.isNaN(ok)) {
    failed += 1;
    broken.push(`${name} (no summary, exit ${result.status ?? result.signal})`);
    return;
  }
  passed += ok;
  skipped += skip;
  failed += total - ok - skip;
  if (result.status !== 0 && total - ok - skip === 0) {
    failed += 1;
    broken.push(`${name} (exit ${result.status} after its tests)`);
  }
}

const started = Date.now();
cpuSeen = childrenCpuSeconds(); // not the package check's
await Promise.all(
  Array.from({ length: Math.min(jobs, queue.length) }, async () => {
    for (let file = queue.shift(); file; file = queue.shift()) {
      record(relative(root, file), await runFile(file, env));
    }
  }),
);
for (const file of alone) record(relative(root, file), await runFile(file, env));
await postgres?.stop();

try {
  mkdirSync(dirname(timesFile), { recursive: true });
  // Merged into the file as it is now: another `npm test` (a filtered one) may have written it since this run began.
  const measured = Object.fromEntries(files.map((file) => relative(root, file)).map((name) => [name, times[name]]));
  writeFileSync(timesFile, JSON.stringify({ ...readTimes(), ...measured }, null, 2));
} catch {
  // Only the order of the next run depends on it.
}

if (broken.length > 0) console.log(`\nBroken test files:\n  ${broken.join('\n  ')}`);
if (files.length === 0) console.log('No test files found.');
const serial = Object.entries(times)
  .filter(([name]) => files.some((file) => relative(root, file) === name))
  .reduce((sum, [, ms]) => sum + ms, 0);
console.log(
  `\n${files.length} files in ${((Date.now() - started) / 1000).toFixed(0)} s with ${jobs} in parallel ` +
    `(${(serial / 1000).toFixed(0)} s one after another, ${cpuTotal.toFixed(0)} s CPU)`,
);
console.log(`\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(failed > 0 || files.length === 0 ? 1 : 0);
