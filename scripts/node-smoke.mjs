// The smoke run on a supported Node line that CI does not run the whole suite on: with the Node that runs this script,
// `npm start`'s server on a fresh SQLite data dir starts, answers GET /health, and passes the conformance suite's
// `examples` phase (every operation called with its documented examples, accounts provisioned through the admin
// surface). Prints one line per step and ends with `N passed, N failed` (one per step), exit code 1 on a failure.
//   PATH=<node>/bin:$PATH node scripts/node-smoke.mjs
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const STARTUP_MS = 180_000; // a start is seconds; CI's loaded cores have needed more than a minute
const CONFORMANCE_MS = 15 * 60_000;

const freePort = () =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });

/** Resolves with the exit code (or the signal's name) once the child ends. */
const ended = (child) =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve(child.exitCode ?? child.signalCode)
    : new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)));

async function health(base, server) {
  const deadline = Date.now() + STARTUP_MS;
  let exited;
  ended(server).then((code) => (exited = code));
  while (Date.now() < deadline && exited === undefined) {
    try {
      const reply = await fetch(`${base}/health`);
      if (reply.status === 200) return (await reply.json()).status;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(exited === undefined ? `no 200 from /health within ${STARTUP_MS / 1000} s` : `exited (${exited})`);
}

function conformance(base, adminToken) {
  const child = spawn(
    process.execPath,
    [
      join(root, 'conformance/bin/scribe-conformance.mjs'),
      ...['--base-url', base, '--admin-token', adminToken, '--phases', 'examples', '--no-progress'],
    ],
    { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const timer = setTimeout(() => child.kill('SIGKILL'), CONFORMANCE_MS);
  return ended(child).then((code) => {
    clearTimeout(timer);
    return { code, output };
  });
}

const results = [];
const record = (ok, line) => {
  results.push(ok);
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${line}`);
};

const dataDir = mkdtempSync(join(tmpdir(), 'scribe-node-smoke-'));
const adminToken = randomBytes(24).toString('hex');
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
console.log(`Node ${process.version}: the server on ${base}, data dir ${dataDir}`);
const server = spawn(process.execPath, [join(root, 'server/bin/start.mjs')], {
  cwd: root,
  env: {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    SCRIBE_DATA_DIR: dataDir,
    SCRIBE_ADMIN_TOKEN: adminToken,
  },
  stdio: ['ignore', 'ignore', 'pipe'],
});
let serverErrors = '';
server.stderr.on('data', (chunk) => (serverErrors += chunk));
try {
  const status = await health(base, server).then(
    (value) => value,
    (error) => {
      record(false, `start and GET /health: ${error.message}${serverErrors ? `\n${serverErrors.trim()}` : ''}`);
      return undefined;
    },
  );
  if (status !== undefined) {
    record(status === 'ok' || status === 'degraded', `start and GET /health: 200, status ${status}`);
    const run = await conformance(base, adminToken);
    const lines = run.output.trim().split('\n');
    const counts = lines.find((line) => /^\d+ cases, /.test(line)) ?? 'no summary';
    record(run.code === 0, `conformance --phases examples: exit ${run.code}, ${counts}; ${lines.at(-1)}`);
    if (run.code !== 0) console.log(run.output.trim().split('\n').slice(-40).join('\n'));
  }
} finally {
  server.kill('SIGTERM');
  await ended(server);
  rmSync(dataDir, { recursive: true, force: true });
}
const failed = results.filter((ok) => !ok).length;
console.log(`${results.length - failed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
