// Fault injection against a PostgreSQL of the test's own (a throwaway cluster; the machine's is never touched): the
// whole cluster frozen with SIGSTOP (a stopped host: sockets open, nothing answers), the server shut down and started
// again (a lost database: connections end, new ones are refused) and every connection of the server terminated
// (pg_terminate_backend, as an operator or a failover does), each under a steady load of clients,
// health probes and running transcription tasks. After each fault: what the clients saw (status counts, the longest
// wait, every answer within its bound, never a 500), how long the server took to serve again, and the money audit
// (tasks final, nothing held, nothing captured twice, balance = top-ups − captures). The full disk has its own file
// (media/disk-space.test.ts), a database cut off at the network server/src/db/database-bounds.test.ts.
import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createApp, type App } from '../app.ts';
import { loadConfig } from '../config.ts';
import { goforward } from '../test-support/audio.ts';
import { auditProblems, moneyAudit } from '../test-support/money-audit.ts';
import { startThrowawayPostgres, type ThrowawayPostgres } from '../test-support/throwaway-postgres.ts';

const ADMIN = 'faults-admin-token-8d3b61e07a';
const BOUNDS = {
  SCRIBE_DB_CONNECT_TIMEOUT_MS: '1000',
  SCRIBE_DB_ACQUIRE_TIMEOUT_MS: '1500',
  SCRIBE_DB_STATEMENT_TIMEOUT_MS: '1500',
};
/**
 * The longest a request may wait with those bounds: a connection waited for (acquire), then a statement that gets no
 * answer (statement + the client's 1 s grace), and 1 s of slack for a loaded machine.
 */
const REQUEST_BOUND_MS = 1500 + 1500 + 1000 + 1000;
const HEALTH_BOUND_MS = 1000;

interface Sample {
  what: 'api' | 'health';
  status: number;
  ms: number;
  at: number;
}

const test = suite('infrastructure faults (a throwaway PostgreSQL)');
const dataDir = join(tmpdir(), `scribe-faults-${randomBytes(4).toString('hex')}`);
let cluster: ThrowawayPostgres;
let app: App;
let base: string;
const accounts: { id: string; apiKey: string }[] = [];

async function request(apiKey: string | undefined, method: string, path: string, json?: unknown) {
  const began = performance.now();
  try {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: {
        ...(apiKey ? { Authorization: `Bearer ${apiKey}` } : { 'X-Admin-Token': ADMIN }),
        ...(json ? { 'Content-Type': 'application/json' } : {}),
      },
      body: json ? JSON.stringify(json) : undefined,
      signal: AbortSignal.timeout(30_000),
    });
    const text = await response.text();
    return { status: response.status, ms: performance.now() - began, text };
  } catch {
    return { status: 0, ms: performance.now() - began, text: '' };
  }
}

/** Clients and health probes until `stop` resolves: 3 clients reading and writing, a probe every 250 ms. */
async function underLoad(during: () => Promise<void>): Promise<Sample[]> {
  const samples: Sample[] = [];
  let running = true;
  const client = async (index: number) => {
    const { apiKey } = accounts[index % accounts.length]!;
    for (let i = 0; running; i++) {
      const reply =
        i % 3 === 2
          ? await request(apiKey, 'POST', '/v3/keys/create', { name: `load ${i}` })
          : await request(apiKey, 'GET', '/v3/keys/list');
      samples.push({ what: 'api', status: reply.status, ms: reply.ms, at: performance.now() });
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  const probe = async () => {
    while (running) {
      const reply = await request(undefined, 'GET', '/health');
      samples.push({ what: 'health', status: reply.status, ms: reply.ms, at: performance.now() });
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  };
  const loops = [client(0), client(1), client(2), probe()];
  await during();
  running = false;
  await Promise.all(loops);
  return samples;
}

function summary(name: string, samples: Sample[], healedAt: number) {
  const counts = (what: Sample['what']) =>
    samples
      .filter((sample) => sample.what === what)
      .reduce<Record<number, number>>(
        (all, sample) => ({ ...all, [sample.status]: (all[sample.status] ?? 0) + 1 }),
        {},
      );
  const longest = (what: Sample['what']) =>
    Math.round(Math.max(0, ...samples.filter((sample) => sample.what === what).map((sample) => sample.ms)));
  const served = samples.find((sample) => sample.what === 'api' && sample.status < 300 && sample.at > healedAt);
  const line = {
    fault: name,
    api: counts('api'),
    health: counts('health'),
    longestApiMs: longest('api'),
    longestHealthMs: longest('health'),
    recoveryMs: served ? Math.round(served.at - healedAt) : null,
  };
  console.log(JSON.stringify(line));
  return line;
}

function assertAnswered(samples: Sample[], line: ReturnType<typeof summary>) {
  for (const sample of samples) {
    assert.ok([200, 201, 503].includes(sample.status), `${sample.what} answered ${sample.status}`);
    const bound = sample.what === 'health' ? HEALTH_BOUND_MS : REQUEST_BOUND_MS;
    assert.ok(sample.ms < bound, `${sample.what} answered after ${Math.round(sample.ms)} ms (bound ${bound})`);
  }
  assert.ok(line.recoveryMs !== null && line.recoveryMs < 5000, `recovered after ${line.recoveryMs} ms`);
}

async function startTasks() {
  const audio = new Uint8Array(readFileSync(goforward('wav')));
  const ids: string[] = [];
  for (const { apiKey } of accounts.slice(0, 2)) {
    const form = new FormData();
    form.set('file', new Blob([audio]), 'a.wav');
    form.set('language', 'en');
    const response = await fetch(`${base}/v3/transcriptions/async/upload`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${apiKey}` },
      body: form,
    });
    assert.is(response.status, 202, await response.clone().text());
    ids.push(((await response.json()) as { transcription_id: string }).transcription_id);
  }
  return ids;
}

async function auditAfter(ids: string[]) {
  const until = Date.now() + 60_000;
  for (;;) {
    const rows = await app.db('transcriptions').whereIn('id', ids).select('status');
    if (rows.every((row: { status: string }) => ['completed', 'failed', 'cancelled'].includes(row.status))) {
      assert.ok(
        rows.every((row: { status: string }) => row.status === 'completed'),
        JSON.stringify(rows),
      );
      break;
    }
    if (Date.now() > until) throw new Error(`tasks not final: ${JSON.stringify(rows)}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  const audit = await moneyAudit(app.db);
  console.log(JSON.stringify({ audit }));
  assert.equal(auditProblems(audit), []);
}

test.before(async () => {
  cluster = await startThrowawayPostgres({ stopOnExit: true });
  app = await createApp(
    loadConfig({
      NODE_ENV: 'test',
      DATABASE_URL: cluster.url,
      SCRIBE_DATA_DIR: dataDir,
      SCRIBE_SECRET_KEY: randomBytes(32).toString('hex'),
      SCRIBE_ADMIN_TOKEN: ADMIN,
      SCRIBE_RATE_LIMIT_RPS: '1000',
      // Answer times as in production: no response validation (under NODE_ENV=test the first answer of each status
      // compiles its validator, hundreds of ms on a loaded machine).
      SCRIBE_VALIDATE_RESPONSES: 'false',
      SCRIBE_AUTH_CACHE_MS: '0',
      SCRIBE_WORKERS: '1',
      SCRIBE_JOB_LEASE_MS: '3000',
      SCRIBE_JOB_POLL_MS: '250',
      ...BOUNDS,
    }),
  );
  await new Promise<void>((resolve) => app.server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  for (let i = 0; i < 3; i++) {
    const created = await app.services.accounts.create({});
    accounts.push({ id: created.account.id, apiKey: created.api_key! });
    const topup = await request(undefined, 'POST', `/admin/accounts/${created.account.id}/topup`, { amount: 50 });
    assert.is(topup.status, 200, topup.text);
  }
});

test.after(async () => {
  cluster?.signalAll('SIGCONT');
  await app?.close();
  await cluster?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

test('the whole cluster frozen (SIGSTOP) for 4 s: 503 within the bounds, never a hang or a 500', async () => {
  const tasks = await startTasks();
  let healedAt = 0;
  const samples = await underLoad(async () => {
    await new Promise((resolve) => setTimeout(resolve, 500));
    cluster.signalAll('SIGSTOP');
    await new Promise((resolve) => setTimeout(resolve, 4000));
    cluster.signalAll('SIGCONT');
    healedAt = performance.now();
    await new Promise((resolve) => setTimeout(resolve, 3000));
  });
  const line = summary('frozen 4 s', samples, healedAt);
  assertAnswered(samples, line);
  assert.ok((line.api[503] ?? 0) > 0, 'the freeze was seen');
  assert.ok((line.health[503] ?? 0) > 0, '/health said the database failed');
  await auditAfter(tasks);
});

test('the server shut down for 3 s and started again (a lost database): 503 meanwhile, served again after', async () => {
  const tasks = await startTasks();
  let healedAt = 0;
  const samples = await underLoad(async () => {
    await new Promise((resolve) => setTimeout(resolve, 500));
    await cluster.restartAfter(3000);
    healedAt = performance.now();
    await new Promise((resolve) => setTimeout(resolve, 3000));
  });
  const line = summary('shut down 3 s', samples, healedAt);
  assertAnswered(samples, line);
  assert.ok((line.api[503] ?? 0) > 0, 'the outage was seen');
  assert.ok((line.health[503] ?? 0) > 0, '/health said the database failed');
  await auditAfter(tasks);
});

test('every connection terminated (pg_terminate_backend): 503 at most, and served again at once', async () => {
  const tasks = await startTasks();
  let healedAt = 0;
  const samples = await underLoad(async () => {
    await new Promise((resolve) => setTimeout(resolve, 500));
    const admin = new pg.Client({ connectionString: cluster.url });
    await admin.connect();
    await admin.query(
      'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND backend_type = $1',
      ['client backend'],
    );
    await admin.end();
    healedAt = performance.now();
    await new Promise((resolve) => setTimeout(resolve, 2500));
  });
  const line = summary('connections terminated', samples, healedAt);
  assertAnswered(samples, line);
  await auditAfter(tasks);
});

test.run();
