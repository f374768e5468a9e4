// Scribe on several machines: two `api` and two `worker` processes on one fresh PostgreSQL database, each with its own
// data dir (as on separate machines, no shared disk). Tasks are submitted through both api nodes while no worker runs
// (they wait), a worker is killed with SIGKILL in the middle of a job, an api node in the middle of an upload, the
// other api node in the middle of a live stream. Every accepted task completes exactly once and is captured exactly
// once, each task's webhook event arrives under one webhook-id with a valid signature, no reservation stays held, the
// ledger balances, and no media is left in the database. Each webhook event is refused once by the receiver, so it
// is delivered again (by whichever worker) under the same webhook-id. Real processes, the real engine, real sockets.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { sendPacedAudio } from '../../client/src/send-paced-audio.ts';
import { createClient } from '../../generated/client/client/index.ts';
import { GOFORWARD_RAW, goforward, librivoxReadings } from '../../server/src/test-support/audio.ts';
import { connectCheckedStream } from '../../server/src/test-support/checked-stream.ts';
import { ADMIN_TOKEN, freshDatabase } from '../../server/src/test-support/test-databases.ts';
import { mediaServer } from '../../server/src/test-support/media-server.ts';
import { startReceiver, verifyStandardWebhook } from '../../server/src/webhooks/test-receiver.ts';
import { freePort, startProcess, type Started } from '../support/processes.ts';

const root = new URL('../../', import.meta.url).pathname;
const LEASE_MS = 2000;
const FINAL = ['completed', 'failed', 'cancelled'];

interface Node {
  name: string;
  role: 'api' | 'worker';
  base: string;
  started: Started;
}

async function waitFor<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    assert.ok(Date.now() < deadline, `timed out waiting for ${what}`);
    await sleep(100);
  }
}

const test = suite('cluster: two api and two worker processes on one PostgreSQL');

test('every accepted task completes and is charged once; webhooks arrive; nothing is held or left', async () => {
  const database = await freshDatabase('postgres');
  const databaseUrl = database.env.DATABASE_URL!;
  const scratch = mkdtempSync(join(tmpdir(), 'scribe-cluster-'));
  const db = new pg.Client({ connectionString: databaseUrl });
  const receiver = await startReceiver();
  // The first delivery of every event fails (500): each event is retried, possibly by another worker.
  const answered = new Set<string>();
  receiver.answer = (request) => {
    const id = String(request.headers['webhook-id']);
    if (answered.has(id)) return 200;
    answered.add(id);
    return 500;
  };
  const media = await mediaServer();
  const nodes: Node[] = [];
  const env = {
    DATABASE_URL: databaseUrl,
    NODE_ENV: 'test',
    LOG_LEVEL: 'info',
    SCRIBE_ADMIN_TOKEN: ADMIN_TOKEN,
    // No SCRIBE_SECRET_KEY: the nodes must agree on the one kept in the database.
    SCRIBE_JOB_LEASE_MS: String(LEASE_MS),
    SCRIBE_JOB_POLL_MS: '500',
    SCRIBE_STREAM_LEASE_MS: String(LEASE_MS),
    SCRIBE_STREAM_SWEEP_MS: '200',
    SCRIBE_STREAM_WORKERS: '1',
    SCRIBE_WORKERS: '1',
    SCRIBE_RATE_LIMIT_RPS: '1000',
    SCRIBE_URL_ALLOW_HOSTS: '127.0.0.1',
    SCRIBE_WEBHOOK_SCHEDULE: '0.5,0.5,0.5',
  };
  const start = async (name: string, role: Node['role']): Promise<Node> => {
    const port = await freePort();
    const started = await startProcess(
      process.execPath,
      ['--import', 'tsx', join(root, 'server/src/main.ts')],
      /Scribe is listening/,
      60_000,
      { ...env, PORT: String(port), SCRIBE_ROLE: role, SCRIBE_DATA_DIR: mkdtempSync(join(scratch, `${name}-`)) },
    );
    const node = { name, role, base: `http://127.0.0.1:${port}`, started };
    nodes.push(node);
    return node;
  };
  const kill = async (node: Node) => {
    node.started.process.kill('SIGKILL');
    if (node.started.process.exitCode === null && node.started.process.signalCode === null)
      await new Promise((resolve) => node.started.process.once('exit', resolve));
  };

  try {
    await db.connect();
    const [api1, api2] = [await start('api1', 'api'), await start('api2', 'api')];

    const account = (await fetch(`${api1.base}/admin/accounts`, {
      method: 'POST',
      headers: { 'X-Admin-Token': ADMIN_TOKEN, 'Content-Type': 'application/json' },
      body: JSON.stringify({ balance: 100 }),
    }).then((r) => r.json())) as { account: { id: string }; api_key: string };
    const auth = { Authorization: `Bearer ${account.api_key}` };
    const money = async () => {
      const { rows } = await db.query('SELECT balance_minor, reserved_minor FROM accounts WHERE id = $1', [
        account.account.id,
      ]);
      return { balance: Number(rows[0].balance_minor), reserved: Number(rows[0].reserved_minor) };
    };

    // A webhook registered through api2 is delivered by whichever worker finishes the task; its secret is the one
    // shown here, whichever node signs.
    const hook = (await fetch(`${api2.base}/v3/webhooks/create`, {
      method: 'POST',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        url: `${receiver.url}/hook`,
        events: ['transcription.completed', 'transcription.failed'],
      }),
    }).then((r) => r.json())) as { id: string; secret: string };
    assert.ok(hook.secret, JSON.stringify(hook));

    const upload = async (node: Node, file: string, name: string) => {
      const form = new FormData();
      form.set('language', 'en');
      form.set('file', new Blob([readFileSync(file)]), name);
      const reply = await fetch(`${node.base}/v3/transcriptions/async/create`, {
        method: 'POST',
        headers: auth,
        body: form,
      });
      assert.is(reply.status, 202, await reply.clone().text());
      return ((await reply.json()) as { transcription_id: string }).transcription_id;
    };
    const status = async (node: Node, id: string) =>
      (
        (await (await fetch(`${node.base}/v3/transcriptions/status/${id}`, { headers: auth })).json()) as {
          data: { status: string; progress: number; cost?: number; result?: { text: string } };
        }
      ).data;

    // 1. No worker yet: tasks accepted through both api nodes wait.
    const long = await upload(api1, librivoxReadings(2), 'long.wav');
    const short = [
      await upload(api2, goforward('wav'), 'a.wav'),
      await upload(api1, goforward('mp3'), 'b.mp3'),
      await upload(api2, goforward('ogg'), 'c.ogg'),
    ];
    const linked = (await fetch(`${api2.base}/v3/transcriptions/async/create`, {
      method: 'POST',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ url: `${media.url}/goforward.wav`, language: 'en' }),
    }).then((r) => r.json())) as { transcription_id: string };
    const tasks = [long, ...short, linked.transcription_id];
    await sleep(3000);
    for (const id of [long, ...short]) assert.is((await status(api1, id)).status, 'ready', `${id} waits in ready`);
    assert.is((await status(api2, linked.transcription_id)).status, 'created', 'the link waits to be downloaded');

    // 2. An api node killed in the middle of an upload: nothing is accepted, nothing is held.
    const before = await money();
    await new Promise<void>((resolve) => {
      const partial = request(`${api2.base}/v3/transcriptions/async/create`, {
        method: 'POST',
        headers: { ...auth, 'Content-Type': 'multipart/form-data; boundary=cut', 'Content-Length': 10_000_000 },
      });
      partial.on('error', () => resolve());
      partial.write('--cut\r\nContent-Disposition: form-data; name="file"; filename="x.wav"\r\n\r\n');
      partial.write(readFileSync(goforward('wav')));
      setTimeout(() => void kill(api2), 300);
    });
    assert.equal(await money(), before, 'the cut upload reserved nothing');
    const api2b = await start('api2b', 'api');

    // 3. A live stream on api1, killed in the middle: the workers' sweep releases its reservation.
    const client = await connectCheckedStream(createClient({ baseUrl: api1.base, auth: () => account.api_key }), {
      session: { language: 'en' },
    });
    await sendPacedAudio(client, readFileSync(GOFORWARD_RAW), { leadMs: Infinity });
    // Kept alive until its node is killed (the idle timeout would close it first on a slow start of the workers).
    const keepalive = setInterval(() => client.keepalive(), 5000);
    keepalive.unref();

    // 4. One worker takes the long task first (oldest), and is killed while it recognises.
    const worker1 = await start('worker1', 'worker');
    await waitFor('the long task to be recognised', 120_000, async () => {
      const task = await status(api2b, long);
      assert.not.ok(FINAL.includes(task.status), `the long task ended before the kill: ${task.status}`);
      return task.status === 'processing' && task.progress > 0 ? true : undefined;
    });
    await kill(worker1);
    await kill(api1);
    clearInterval(keepalive);
    assert.is((await client.closed).code, 1006, 'the stream connection was lost, not closed');
    const worker2 = await start('worker2', 'worker');
    await start('worker3', 'worker'); // the second live worker, on a fresh data dir

    // 5. Everything accepted ends, exactly once.
    const ended = await waitFor('every task to end', 240_000, async () => {
      const all = await Promise.all(tasks.map((id) => status(api2b, id)));
      return all.every((task) => FINAL.includes(task.status)) ? all : undefined;
    });
    for (const [i, task] of ended.entries())
      assert.is(task.status, 'completed', `${tasks[i]}: ${JSON.stringify(task)}`);
    assert.ok(ended[0]!.result!.text.split(' ').length > 50, 'the long task was recognised to the end');
    for (const task of ended.slice(1)) assert.match(task.result!.text, /go forward/);

    const streamRow = await waitFor('the dropped stream to be swept', 30_000, async () => {
      const { rows } = await db.query('SELECT status, end_reason FROM stream_sessions WHERE id = $1', [
        client.sessionId,
      ]);
      return rows[0].status === 'connected' ? undefined : rows[0];
    });
    assert.equal([streamRow.status, streamRow.end_reason], ['dropped', 'lease_expired']);
    assert.equal(client.violations, [], 'every stream frame and close code follows the AsyncAPI document');

    // Money: one capture per task, equal to its cost; nothing held; the balance is what the captures left.
    const { rows: captures } = await db.query(
      `SELECT reference, amount_minor FROM ledger_entries WHERE account_id = $1 AND kind = 'capture'`,
      [account.account.id],
    );
    const costs = ended.map((task) => task.cost!);
    for (const [i, id] of tasks.entries()) {
      const mine = captures.filter((row) => row.reference === `transcription:${id}`);
      assert.is(mine.length, 1, `one capture for ${id}: ${JSON.stringify(captures)}`);
      assert.is(-Number(mine[0].amount_minor), Math.round(costs[i]! * 100), `${id} captured its cost`);
    }
    assert.is(captures.length, tasks.length, 'no capture for the cut upload or the dropped stream');
    const spent = costs.reduce((a, b) => a + b, 0);
    assert.equal(await money(), { balance: 100 * 100 - Math.round(spent * 100), reserved: 0 });
    const { rows: held } = await db.query(`SELECT count(*)::int AS n FROM reservations WHERE status = 'active'`);
    assert.is(held[0].n, 0, 'no reservation left active');

    // Webhooks: each task's event under one webhook-id (retries included), signed with the secret shown at creation.
    // Each task's event: refused once, then delivered again (two deliveries at least).
    const taskOf = (delivery: { body: string }) => (JSON.parse(delivery.body) as { data: { id: string } }).data.id;
    await waitFor('every webhook event delivered again after its failure', 30_000, async () => {
      const deliveries = receiver.at('/hook').map(taskOf);
      return tasks.every((id) => deliveries.filter((task) => task === id).length >= 2) ? true : undefined;
    });
    const idsByTask = new Map<string, Set<string>>();
    for (const delivery of receiver.at('/hook')) {
      assert.ok(await verifyStandardWebhook(hook.secret, delivery.headers, delivery.body), 'the signature verifies');
      const event = JSON.parse(delivery.body) as { id: string; data: { id: string } };
      assert.is(delivery.headers['webhook-id'], event.id);
      const ids = idsByTask.get(event.data.id) ?? new Set();
      ids.add(event.id);
      idsByTask.set(event.data.id, ids);
    }
    for (const id of tasks) assert.is(idsByTask.get(id)?.size, 1, `one event id for ${id}`);

    // No media left in the database once the tasks ended.
    const { rows: mediaRows } = await db.query('SELECT count(*)::int AS n FROM media_chunks');
    assert.is(mediaRows[0].n, 0, 'media removed with the tasks');

    // The worker that resumed the long task reports itself.
    const health = (await fetch(`${worker2.base}/health`).then((r) => r.json())) as {
      role: string;
      jobs: { running: number; queued: number };
    };
    assert.is(health.role, 'worker');
    assert.equal(health.jobs, { running: 0, queued: 0 });
  } finally {
    await Promise.all(nodes.map((node) => node.started.stop()));
    await db.end().catch(() => undefined);
    await receiver.close();
    media.server.close();
    await database.drop();
    rmSync(scratch, { recursive: true, force: true });
  }
});

test.run();
