// Roles across real processes on one PostgreSQL database, each process with its own data dir (as on separate
// machines): an `api` node queues an upload and runs nothing; a `worker` started later completes the task, answers
// only GET /health (role, jobs running, queue depth) and 404 elsewhere; a worker whose poll is a minute away is woken
// by the api node's NOTIFY, also after its listening connection was killed; SIGTERM on a worker mid-job exits 0 and
// another worker resumes the task, charging it once; SIGTERM on an api node closes an open stream with the contract's
// code and exits 0; a bad SCRIBE_ROLE stops the start with one line and exit code 1.
import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { sendPacedAudio } from '../../../client/src/send-paced-audio.ts';
import { createClient } from '../../../generated/client/client/index.ts';
import { zNotFoundErrorResponse } from '../../../generated/client/zod.gen.ts';
import { runNodeToEnd, STACK_LINE } from '../../../test/support/processes.ts';
import { GOFORWARD_RAW, goforward, librivoxReadings } from '../test-support/audio.ts';
import { connectCheckedStream } from '../test-support/checked-stream.ts';
import { checkResponse } from '../test-support/contract-check.ts';
import { ADMIN_TOKEN, freshDatabase } from '../test-support/test-databases.ts';
import { createAccountOn, startScribe, type ScribeProcess } from '../test-support/scribe-process.ts';

const FINAL = ['completed', 'failed', 'cancelled'];
/** A worker's idle poll in these tests: far longer than any wait below, so only a notification wakes it in time. */
const SLOW_POLL_MS = '60000';

interface Task {
  status: string;
  progress: number;
  cost?: number;
  minutes_billed?: number;
  result?: { text: string };
}

/** A GET whose answer is checked against the contract (status, body, X-Request-Id). */
async function getChecked(base: string, path: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${base}${path}`, { headers });
  const text = await response.text();
  const body = text ? JSON.parse(text) : undefined;
  checkResponse({ method: 'GET', path }, { status: response.status, headers: response.headers, text, body });
  return { status: response.status, headers: response.headers, body };
}

/** Resolves with the exit code once the process has ended (or rejects after `ms`). */
function exitOf(server: ScribeProcess, ms: number): Promise<number | null> {
  const child = server.process.process;
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () =>
        reject(
          new Error(`still running ${ms} ms after SIGTERM; its last output:\n${server.process.output().slice(-3000)}`),
        ),
      ms,
    );
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
}

const test = suite('roles: api and worker processes on one PostgreSQL database');

let database: Awaited<ReturnType<typeof freshDatabase>>;
let scratch: string;
let api: ScribeProcess;
const workers: ScribeProcess[] = [];
let account: { id: string; apiKey: string };

/** A node on the shared database, with a data dir of its own (startScribe makes one per process). */
const startNode = (role: string, env: Record<string, string> = {}) =>
  startScribe('postgres', { DATABASE_URL: database.env.DATABASE_URL!, SCRIBE_ROLE: role, ...env });

const auth = () => ({ Authorization: `Bearer ${account.apiKey}` });

async function upload(file: string): Promise<string> {
  const form = new FormData();
  form.set('language', 'en');
  form.set('file', new Blob([readFileSync(file)]), 'speech.wav');
  const accepted = await fetch(`${api.base}/v3/transcriptions/async/create`, {
    method: 'POST',
    headers: auth(),
    body: form,
  });
  assert.is(accepted.status, 202, await accepted.clone().text());
  return ((await accepted.json()) as { transcription_id: string }).transcription_id;
}

async function status(id: string): Promise<Task> {
  const reply = await getChecked(api.base, `/v3/transcriptions/status/${id}`, auth());
  assert.is(reply.status, 200, JSON.stringify(reply.body));
  return reply.body.data as Task;
}

/** Waits for a final state; fails after `ms`. */
async function finished(id: string, ms: number): Promise<Task> {
  const until = Date.now() + ms;
  for (;;) {
    const task = await status(id);
    if (FINAL.includes(task.status)) return task;
    assert.ok(Date.now() < until, `task ${id} still ${task.status} after ${ms} ms`);
    await sleep(100);
  }
}

async function leaseOwnerOf(id: string): Promise<string | null> {
  return (await leaseOf(id)).lease_owner;
}

/** The task's lease columns, read from the database. */
async function leaseOf(id: string): Promise<{ lease_owner: string | null; attempts: number }> {
  const client = new pg.Client({ connectionString: database.env.DATABASE_URL });
  await client.connect();
  try {
    const { rows } = await client.query<{ lease_owner: string | null; attempts: number }>(
      'SELECT lease_owner, attempts FROM transcriptions WHERE id = $1',
      [id],
    );
    return rows[0] ?? { lease_owner: null, attempts: 0 };
  } finally {
    await client.end();
  }
}

async function captures(): Promise<{ amount: number }[]> {
  const ledger = (await fetch(`${api.base}/admin/accounts/${account.id}/ledger?limit=100`, {
    headers: { 'X-Admin-Token': ADMIN_TOKEN },
  }).then((r) => r.json())) as { data: { kind: string; amount: number }[] };
  return ledger.data.filter((entry) => entry.kind === 'capture');
}

test.before(async () => {
  database = await freshDatabase('postgres');
  scratch = mkdtempSync(join(tmpdir(), 'scribe-roles-'));
  api = await startNode('api');
  account = await createAccountOn(api.base, 1000);
});

test.after(async () => {
  for (const worker of workers) await worker.stop().catch(() => undefined);
  await api?.stop().catch(() => undefined);
  await database?.drop();
  rmSync(scratch, { recursive: true, force: true });
});

test('an api node queues an upload and runs nothing; a worker started later completes it', async () => {
  const id = await upload(goforward('wav'));
  // No worker anywhere: the task waits, however long.
  for (let i = 0; i < 8; i += 1) {
    await sleep(500);
    assert.is((await status(id)).status, 'ready');
  }
  const apiHealth = await getChecked(api.base, '/health');
  assert.is(apiHealth.status, 200);
  assert.is(apiHealth.body.role, 'api');
  assert.equal(apiHealth.body.jobs, { running: 0, queued: 1 });

  const worker = await startNode('worker', { SCRIBE_JOB_POLL_MS: SLOW_POLL_MS });
  workers.push(worker);
  const task = await finished(id, 60_000);
  assert.is(task.status, 'completed', JSON.stringify(task));
  assert.match(task.result!.text, /go forward/i);
  assert.is((await captures()).length, 1);

  // The task's row reads completed a moment before the worker's job ends and frees its slot (the work after the
  // final commit), so the worker's own count is read until it is down to 0, for at most 5 s.
  let health = await getChecked(worker.base, '/health');
  for (let waited = 0; health.body.jobs?.running !== 0 && waited < 5000; waited += 100) {
    await sleep(100);
    health = await getChecked(worker.base, '/health');
  }
  assert.is(health.status, 200);
  assert.ok(health.headers.get('x-request-id'));
  assert.is(health.body.role, 'worker');
  assert.is(health.body.status, 'ok');
  assert.equal(health.body.jobs, { running: 0, queued: 0 });
  // HEAD is GET without the body on a worker too; other methods are 405 naming both.
  const head = await fetch(`${worker.base}/health`, { method: 'HEAD' });
  assert.equal([head.status, await head.text()], [200, '']);
  const put = await fetch(`${worker.base}/health`, { method: 'PUT' });
  assert.equal([put.status, put.headers.get('allow')], [405, 'GET, HEAD']);
});

test("a worker answers the contract's 404 body on every other path, with X-Request-Id", async () => {
  const worker = workers[0]!;
  for (const [method, path] of [
    ['GET', '/v3/models'],
    ['GET', '/v3/transcriptions/status/x'],
    ['GET', '/docs/'],
    ['POST', '/v3/transcriptions/async/create'],
  ] as const) {
    // The operations exist in the contract, but not on a worker: the answer is the contract's 404 error body.
    const reply = await fetch(`${worker.base}${path}`, { method, headers: { ...auth(), 'X-Request-Id': 'probe-1' } });
    assert.is(reply.status, 404, path);
    assert.is(reply.headers.get('x-request-id'), 'probe-1');
    const body = zNotFoundErrorResponse.parse(await reply.json());
    assert.is(body.error.code, 'not_found', path);
  }
});

test("the api node's NOTIFY wakes the idle worker, also after its listening connection was killed", async () => {
  const worker = workers[0]!;
  const started = Date.now();
  const first = await upload(goforward('wav'));
  assert.is((await finished(first, 20_000)).status, 'completed');
  assert.ok(Date.now() - started < 20_000);

  // Kill the listener's connection from the database side.
  const admin = new pg.Client({ connectionString: database.env.DATABASE_URL });
  await admin.connect();
  try {
    const killed = await admin.query(
      // pg_stat_activity spans every database of the server: other test files' workers listen there too.
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'scribe-job-wakeup' AND datname = current_database()",
    );
    assert.is(killed.rowCount, 1);
  } finally {
    await admin.end();
  }
  for (let i = 0; !/listening again/.test(worker.process.output()); i += 1) {
    assert.ok(i < 100, `the listener did not reconnect:\n${worker.process.output()}`);
    await sleep(100);
  }
  const lost = worker.process
    .output()
    .split('\n')
    .filter((line) => line.includes('lost its database connection'));
  assert.is(lost.length, 1, 'the drop is logged once');

  const second = await upload(goforward('wav'));
  assert.is((await finished(second, 20_000)).status, 'completed');
});

test('SIGTERM on a worker mid-job: exit 0, its lease handed back, another worker completes the task once', async () => {
  const [first] = workers;
  const before = (await captures()).length;
  const id = await upload(librivoxReadings(2));
  for (let i = 0; ; i += 1) {
    const task = await status(id);
    if (task.status === 'processing' && task.progress > 0) break;
    assert.ok(i < 600 && !FINAL.includes(task.status), `never caught processing: ${task.status}`);
    await sleep(50);
  }
  const busy = await getChecked(first!.base, '/health');
  assert.equal(busy.body.jobs, { running: 1, queued: 0 });

  // The second worker polls fast: it takes the task as soon as the first hands it back.
  const second = await startNode('worker');
  workers.push(second);
  const holder = await leaseOwnerOf(id);
  assert.ok(holder, 'the first worker holds the task');
  assert.is((await status(id)).status, 'processing', 'the first worker is still on it');
  first!.process.process.kill('SIGTERM');
  // Handed back, not left to expire (the lease is 30 s): the second worker holds it within a few seconds.
  for (let i = 0; ; i += 1) {
    const owner = await leaseOwnerOf(id);
    if (owner && owner !== holder) break;
    assert.ok(i < 50, `the lease was not handed over: ${owner}`);
    await sleep(100);
  }
  // The exit follows once the engine's threads have freed their decoders: a thread stops after its decoder's current
  // native call, one segment of up to 20 s of audio (no thread, not even a terminated one, stops inside it). That took
  // 13 s with five busy loops beside this file and over 30 s in a loaded CI run; the task no longer waits on it.
  assert.is(await exitOf(first!, 120_000), 0, first!.process.output());
  assert.match(first!.process.output(), /"msg":"shutdown: engines closed"/);
  assert.match(first!.process.output(), /"msg":"shut down"/);

  const task = await finished(id, 180_000);
  assert.is(task.status, 'completed', JSON.stringify(task));
  assert.ok(task.result!.text.split(' ').length > 50, task.result!.text);
  // A task handed back on shutdown is not counted as a failed attempt (rolling restarts must not use them up).
  assert.is((await leaseOf(id)).attempts, 1, 'only the claim that completed it counts');
  const charged = await captures();
  assert.is(charged.length, before + 1, JSON.stringify(charged));
  assert.ok(
    charged.some((capture) => capture.amount === -task.cost!),
    JSON.stringify(charged),
  );
});

test('SIGTERM on an api node closes an open stream with 1001 (going away) and an error frame, then exits 0', async () => {
  // The node's first session starts its stream worker (module graph and model); if it never starts, the node says why.
  const client = await connectCheckedStream(createClient({ baseUrl: api.base, auth: () => account.apiKey }), {
    session: { language: 'en' },
  }).catch((error: Error) => {
    throw new Error(`${error.message}; the api node's last output:\n${api.process.output().slice(-3000)}`);
  });
  await sendPacedAudio(client, readFileSync(GOFORWARD_RAW), { leadMs: Infinity });

  api.process.process.kill('SIGTERM');
  const closed = await client.closed;
  assert.is(closed.code, 1001);
  const error = client.socket.of('error')[0];
  assert.ok(error, JSON.stringify(client.socket.frames.map((frame) => frame.type)));
  assert.is(error!.close_code, 1001);
  assert.equal(client.violations, []);
  assert.is(await exitOf(api, 15_000), 0, api.process.output());
});

test('a bad SCRIBE_ROLE stops the start: one line naming it, exit code 1', async () => {
  for (const [env, expected] of [
    [{ SCRIBE_ROLE: 'scheduler', DATABASE_URL: database.env.DATABASE_URL! }, /^scribe: SCRIBE_ROLE must be one of/],
    [{ SCRIBE_ROLE: 'worker', DATABASE_URL: '' }, /^scribe: SCRIBE_ROLE worker needs DATABASE_URL/],
  ] as const) {
    const { code, output } = await runNodeToEnd(['--import', 'tsx', 'server/src/main.ts'], {
      ...env,
      NODE_ENV: 'test',
      SCRIBE_DATA_DIR: scratch,
      PORT: '0',
    });
    assert.is(code, 1, output);
    const lines = output.split('\n').filter((line) => line.trim() !== '');
    assert.is(lines.length, 1, output);
    assert.match(lines[0]!, expected);
    assert.not.match(output, STACK_LINE);
  }
});

test.run();
