// `npm test`: runs every *.test.ts (uvu suites) in its own Node process with tsx and ends with the line
// `N passed, N failed` that CI reads (uvu prints only Total/Passed/Skipped). A test file that crashes before printing
// its summary counts as one failure. Optional arguments filter files by substring; `--every-line` keeps only the files
// whose behaviour depends on the runtime (scripts/test-lines.json: CI runs those on each Node line it tests, and the
// whole suite on the first).
//
// Before the tests: the Debian packages the tests use are installed when that can be done unattended (or one line says
// what is missing), and when no PostgreSQL answers at SCRIBE_TEST_POSTGRES_URL a throwaway one is started for the run
// (server/src/test-support/throwaway-postgres.ts) and handed to every file, so the PostgreSQL variants always run.
//
// Files run in parallel: each file makes its own temporary data dirs, PostgreSQL databases and free ports, so files
// share nothing but the machine (the few that time the machine itself run alone, see runAlone). The run is bound by
// CPU, and many files spend much of their time waiting (real-time audio, browsers, npm installs, retry back-off), so
// files are started by the CPU they are known to use rather than one per core: a file's load is its CPU seconds over
// its wall seconds, and files start, longest first, while the loads of those running fit the cores
// (SCRIBE_TEST_JOBS overrides the number of cores). What is known comes from the previous run on this machine
// (node_modules/.cache), else from the times recorded in scripts/test-times.json (a CI run; refreshed with
// SCRIBE_TEST_RECORD=1 npm test), else a file counts as one whole core and as long as the longest.
// Each file's output is printed as one block when it ends, headed by its wall time and CPU time (its own and its
// children's).
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stripVTControlCharacters } from 'node:util';
import { ensurePackages, testPackages } from './system-packages.mjs';
import { manifestProblems, readTestLines, runsOnEveryLine, testFiles } from './test-lines.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
// Only Node's own modules are imported above, so a checkout without its dependencies gets this line, not a stack trace.
if (!existsSync(join(root, 'node_modules/tsx/package.json'))) {
  console.log('scribe: the dependencies are not installed: run npm install first.');
  console.log('0 passed, 1 failed');
  process.exit(1);
}

/**
 * Files that measure time on the machine itself and so run with no other file beside them (after the others): the
 * embedding engine's event-loop lag bound (it failed when another test file loaded the two cores at the same time),
 * and the conformance suite against the reference server, whose two runs have time limits and whose idle stream must
 * be closed within 15 s of its 30 s timeout (beside another file in CI, at load 10–12, its PostgreSQL run took 245 s
 * and the idle stream's close did not come; alone on the same machine: 9 of 9 in 154 s).
 */
const runAlone = new Set([
  'server/src/embeddings/use-lite/engine.test.ts',
  'conformance/suites/reference-server.test.ts',
]);
const timesFile = join(root, 'node_modules/.cache/scribe-test-times.json');
const recordedTimesFile = join(root, 'scripts/test-times.json');

/** File name → `{ ms, cpu }` (wall milliseconds, CPU seconds); older caches held the wall milliseconds alone. */
function readTimes(path = timesFile) {
  try {
    const read = JSON.parse(readFileSync(path, 'utf8'));
    return Object.fromEntries(Object.entries(read).map(([name, t]) => [name, typeof t === 'number' ? { ms: t } : t]));
  } catch {
    return {};
  }
}

/** The PostgreSQL the tests use: the configured one when it answers, else a throwaway one for this run. */
async function testPostgres() {
  const { register } = await import('tsx/esm/api');
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
let started = Date.now();

/**
 * The longest a test file may run (SCRIBE_TEST_FILE_TIMEOUT_S, seconds): a file that hangs (a server that never
 * answers, a connection never closed) is stopped and counted as failed, so the run still ends with its line instead
 * of holding CI until its own limit. The longest file takes about 95 s alone, so the default leaves room for a crowded
 * machine.
 */
const fileTimeoutMs = 1000 * (Number(process.env.SCRIBE_TEST_FILE_TIMEOUT_S) || 900);
/** Process groups of the files running now: each file runs in a group of its own, with the servers it starts. */
const runningGroups = new Set();
const stopGroup = (pid, signal) => {
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
};
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    for (const pid of runningGroups) stopGroup(pid, 'SIGKILL');
    process.exit(130);
  });
}

function runFile(file, env) {
  return new Promise((resolve) => {
    const begun = Date.now();
    const child = spawn(process.execPath, ['--import', 'tsx', file], {
      cwd: root,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true, // its own process group, so a file that hangs is stopped with everything it started
    });
    runningGroups.add(child.pid);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      stopGroup(child.pid, 'SIGTERM');
      setTimeout(() => stopGroup(child.pid, 'SIGKILL'), 5000).unref();
    }, fileTimeoutMs);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    let cpu;
    child.once('exit', () => {
      // What the file started and left running would hold its output open (and the run) until the file's limit.
      setTimeout(() => stopGroup(child.pid, 'SIGKILL'), 3000).unref();
      const now = childrenCpuSeconds();
      if (now !== undefined && cpuSeen !== undefined) [cpu, cpuSeen] = [now - cpuSeen, now];
    });
    child.once('close', (status, signal) => {
      clearTimeout(timer);
      runningGroups.delete(child.pid);
      stopGroup(child.pid, 'SIGKILL'); // what the file started and left running
      resolve({ status, signal, stdout, stderr, ms: Date.now() - begun, at: begun - started, cpu, timedOut });
    });
  });
}

const everyLineOnly = process.argv.includes('--every-line');
const filters = process.argv.slice(2).filter((arg) => arg !== '--every-line');
const lines = readTestLines();
const files = testFiles()
  .filter((file) => filters.length === 0 || filters.some((f) => file.includes(f)))
  .filter((file) => !everyLineOnly || runsOnEveryLine(file, lines));
if (everyLineOnly) {
  // An unnamed file runs here too (the safe side); the manifest's own test fails until it is named.
  const unnamed = manifestProblems(testFiles(), lines).filter((problem) => problem.includes(' has no line: '));
  console.log(`The files whose behaviour depends on the runtime (scripts/test-lines.json): ${files.length}.`);
  for (const problem of unnamed) console.log(`  ${problem}`);
}

ensurePackages(testPackages, 'the tests');
const postgres = files.length > 0 ? await testPostgres() : undefined;

const recorded = readTimes(recordedTimesFile);
const previous = readTimes();
const known = { ...recorded, ...previous };
const times = { ...known };
const cores = Math.max(1, Number(process.env.SCRIBE_TEST_JOBS) || availableParallelism());
const longest = Math.max(0, ...Object.values(known).map((t) => t.ms ?? 0));
const wallOf = (file) => known[relative(root, file)]?.ms ?? longest + 1;
const measuredLoad = (t) => (t?.cpu !== undefined && t.ms > 0 ? t.cpu / (t.ms / 1000) : undefined);
/**
 * The cores a file keeps busy on average while it runs (at most all of them); a file not yet timed counts as one.
 * A measured load is a lower bound: a file that waited for a core ran longer on the same CPU. So the larger of the
 * recorded and the previous run's is taken; trusting the latest alone let a crowded run (its files measured light)
 * pack the next one tighter still, until real-time tests timed out.
 */
function loadOf(file) {
  const name = relative(root, file);
  const loads = [measuredLoad(recorded[name]), measuredLoad(previous[name])].filter((load) => load !== undefined);
  return loads.length > 0 ? Math.min(cores, Math.max(...loads)) : 1;
}
const alone = files.filter((file) => runAlone.has(relative(root, file)));
const queue = files.filter((file) => !runAlone.has(relative(root, file))).sort((a, b) => wallOf(b) - wallOf(a));
const env = {
  // Validators compiled from the contract are shared by every process of the run and the next runs (each process
  // that validates would otherwise compile them anew: conformance/core/compiled-validator-cache.ts).
  SCRIBE_VALIDATOR_CACHE_DIR: join(root, 'node_modules/.cache/scribe-validators'),
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
  times[name] = { ms: result.ms, ...(result.cpu === undefined ? {} : { cpu: Math.round(result.cpu * 10) / 10 }) };
  cpuTotal += result.cpu ?? 0;
  const cpu = result.cpu === undefined ? '' : `, ${result.cpu.toFixed(1)} s CPU`;
  const at = `, from ${(result.at / 1000).toFixed(0)} s`;
  console.log(`\n=== ${name} (${(result.ms / 1000).toFixed(1)} s${cpu}${at})`);
  process.stdout.write(result.stdout);
  process.stderr.write(result.stderr);
  const out = stripVTControlCharacters(result.stdout);
  const total = Number(out.match(/Total:\s+(\d+)/)?.[1] ?? NaN);
  const ok = Number(out.match(/Passed:\s+(\d+)/)?.[1] ?? NaN);
  const skip = Number(out.match(/Skipped:\s+(\d+)/)?.[1] ?? 0);
  if (result.timedOut) {
    failed += 1;
    broken.push(`${name} (stopped after ${fileTimeoutMs / 1000} s: SCRIBE_TEST_FILE_TIMEOUT_S)`);
    return;
  }
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

/**
 * Runs the files, longest first, starting each one whose load still fits the cores beside those running (a file that
 * does not fit lets a lighter one behind it start); at most two files per core run at once, and a file always starts
 * when nothing else runs.
 */
function runPacked(files) {
  const running = new Map();
  const limit = 2 * cores;
  return new Promise((resolve) => {
    const fill = () => {
      let busy = [...running.values()].reduce((sum, load) => sum + load, 0);
      for (let i = 0; i < files.length && running.size < limit;) {
        const file = files[i];
        const load = loadOf(file);
        if (running.size > 0 && busy + load > cores) {
          i += 1;
          continue;
        }
        files.splice(i, 1);
        running.set(file, load);
        busy += load;
        void runFile(file, env).then((result) => {
          running.delete(file);
          record(relative(root, file), result);
          fill();
        });
      }
      if (running.size === 0) resolve();
    };
    fill();
  });
}

cpuSeen = childrenCpuSeconds(); // not the package check's
started = Date.now();
await runPacked(queue);
for (const file of alone) record(relative(root, file), await runFile(file, env));
await postgres?.stop();

try {
  mkdirSync(dirname(timesFile), { recursive: true });
  // Merged into the file as it is now: another `npm test` (a filtered one) may have written it since this run began.
  const measured = Object.fromEntries(files.map((file) => relative(root, file)).map((name) => [name, times[name]]));
  writeFileSync(timesFile, JSON.stringify({ ...readTimes(), ...measured }, null, 2));
  if (process.env.SCRIBE_TEST_RECORD === '1' && filters.length === 0 && !everyLineOnly)
    writeFileSync(recordedTimesFile, `${JSON.stringify(measured, null, 2)}\n`);
} catch {
  // Only the order of the next run depends on it.
}

if (broken.length > 0) console.log(`\nBroken test files:\n  ${broken.join('\n  ')}`);
if (files.length === 0) console.log('No test files found.');
const serial = files.reduce((sum, file) => sum + (times[relative(root, file)]?.ms ?? 0), 0);
console.log(
  `\n${files.length} files in ${((Date.now() - started) / 1000).toFixed(0)} s packed on ${cores} cores ` +
    `(${(serial / 1000).toFixed(0)} s one after another, ${cpuTotal.toFixed(0)} s CPU)`,
);
console.log(`\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(failed > 0 || files.length === 0 ? 1 : 0);
