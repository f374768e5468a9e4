// A database that does not answer is answered for, within a bound: PostgreSQL behind a proxy that freezes (every byte
// held, sockets open: a stopped host) or cuts (connections reset and refused), and an SQLite file whose write lock
// another process holds. Every request is answered 503 `database_unavailable` with Retry-After within the statement
// and acquire bounds set here (never a hang, never 500), GET /health within a second naming the database, and the
// server serves again by itself once the database answers.
import BetterSqlite3 from 'better-sqlite3';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createApp, type App } from '../app.ts';
import { loadConfig } from '../config.ts';
import { checkResponse } from '../test-support/contract-check.ts';
import { startFaultProxy, type FaultProxy } from '../test-support/fault-proxy.ts';
import { freshDatabase } from '../test-support/test-databases.ts';

const BOUNDS = {
  SCRIBE_DB_CONNECT_TIMEOUT_MS: '800',
  SCRIBE_DB_ACQUIRE_TIMEOUT_MS: '1000',
  SCRIBE_DB_STATEMENT_TIMEOUT_MS: '1000',
  SCRIBE_SQLITE_BUSY_TIMEOUT_MS: '500',
  SCRIBE_AUTH_CACHE_MS: '0',
};
/** The longest a request may wait with those bounds: a statement's client-side limit (1 s + 1 s grace) and slack. */
const REQUEST_BOUND_MS = 3500;

interface Timed {
  status: number;
  ms: number;
  code: string | undefined;
  retryAfter: string | null;
  body: { checks?: { database?: string } } & Record<string, unknown>;
}

async function startApp(env: Record<string, string>) {
  const app: App = await createApp(
    loadConfig({ NODE_ENV: 'test', SCRIBE_SECRET_KEY: randomBytes(32).toString('hex'), ...BOUNDS, ...env }),
  );
  await new Promise<void>((resolve) => app.server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const account = await app.services.accounts.create({});
  const apiKey = account.api_key!;
  const call = async (method: string, path: string, json?: unknown): Promise<Timed> => {
    const began = performance.now();
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { Authorization: `Bearer ${apiKey}`, ...(json ? { 'Content-Type': 'application/json' } : {}) },
      body: json ? JSON.stringify(json) : undefined,
    });
    const text = await response.text();
    const ms = performance.now() - began;
    const body = text ? JSON.parse(text) : {};
    checkResponse({ method, path }, { status: response.status, headers: response.headers, text, body });
    return {
      status: response.status,
      ms,
      code: body.error?.code,
      retryAfter: response.headers.get('retry-after'),
      body,
    };
  };
  return { app, call };
}

function assertUnavailable(replies: Timed[], what: string) {
  for (const reply of replies) {
    assert.is(reply.status, 503, `${what}: ${JSON.stringify(reply.body)}`);
    assert.is(reply.code, 'database_unavailable', what);
    assert.ok(Number(reply.retryAfter) >= 1, `${what}: Retry-After ${reply.retryAfter}`);
    assert.ok(reply.ms < REQUEST_BOUND_MS, `${what}: answered after ${Math.round(reply.ms)} ms`);
  }
}

async function assertHealthSays(call: (method: string, path: string) => Promise<Timed>, database: string) {
  // Twice: under NODE_ENV=test the first answer of a status also compiles its response validator (hundreds of ms on
  // a loaded machine; production does not validate responses), the second is the probe a load balancer sees.
  await call('GET', '/health');
  const health = await call('GET', '/health');
  assert.ok(health.ms < 1000, `/health answered after ${Math.round(health.ms)} ms`);
  assert.is(health.body.checks?.database, database);
  assert.is(health.status, database === 'ok' ? 200 : 503);
}

/** Polls until `path` answers 200; resolves with how long that took. */
async function recovery(call: (method: string, path: string) => Promise<Timed>, path: string): Promise<number> {
  const began = performance.now();
  while (performance.now() - began < 10_000) {
    if ((await call('GET', path)).status === 200) return performance.now() - began;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${path} did not recover within 10 s`);
}

const postgres = suite('database bounds (postgres behind a fault proxy)');
let proxy: FaultProxy;
let drop: () => Promise<void>;
let started: Awaited<ReturnType<typeof startApp>>;

postgres.before(async () => {
  const database = await freshDatabase('postgres', { migrated: true });
  drop = database.drop;
  proxy = await startFaultProxy(database.env.DATABASE_URL!);
  started = await startApp({ ...database.env, DATABASE_URL: proxy.url });
});

postgres.after(async () => {
  proxy.heal();
  await started.app.close();
  await proxy.close();
  await drop();
});

postgres(
  'a frozen database: every request is 503 database_unavailable within its bound, /health within 1 s',
  async () => {
    const { call } = started;
    assert.is((await call('GET', '/v3/keys/list')).status, 200);
    proxy.freeze();
    const replies = await Promise.all([
      ...Array.from({ length: 12 }, () => call('GET', '/v3/keys/list')),
      call('POST', '/v3/keys/create', { name: 'during the freeze' }),
    ]);
    assertUnavailable(replies, 'frozen');
    await assertHealthSays(call, 'error');
    proxy.heal();
    const took = await recovery(call, '/v3/keys/list');
    assert.ok(took < 5000, `recovered after ${Math.round(took)} ms`);
    await assertHealthSays(call, 'ok');
  },
);

postgres('a lost database: connections cut and refused are 503, and the server recovers once it is back', async () => {
  const { call } = started;
  proxy.cut();
  const replies = await Promise.all(Array.from({ length: 5 }, () => call('GET', '/v3/keys/list')));
  assertUnavailable(replies, 'cut');
  await assertHealthSays(call, 'error');
  proxy.heal();
  await recovery(call, '/v3/keys/list');
  await assertHealthSays(call, 'ok');
});

postgres.run();

const sqlite = suite('database bounds (sqlite with its write lock held)');
let sqliteDrop: () => Promise<void>;
let sqliteApp: Awaited<ReturnType<typeof startApp>>;
let dataDir: string;

sqlite.before(async () => {
  const database = await freshDatabase('sqlite', { migrated: true });
  sqliteDrop = database.drop;
  dataDir = database.env.SCRIBE_DATA_DIR!;
  sqliteApp = await startApp(database.env);
});

sqlite.after(async () => {
  await sqliteApp.app.close();
  await sqliteDrop();
});

sqlite('a write that cannot get the lock within the busy timeout is 503 database_unavailable', async () => {
  const { call } = sqliteApp;
  const holder = new BetterSqlite3(join(dataDir, 'scribe.sqlite'));
  holder.pragma('busy_timeout = 0');
  holder.exec('BEGIN IMMEDIATE');
  try {
    const replies = await Promise.all([call('POST', '/v3/keys/create', { name: 'while locked' })]);
    assertUnavailable(replies, 'locked');
    // Reads go on (WAL): the lock is a writer's, and /health's check reads.
    await assertHealthSays(call, 'ok');
  } finally {
    holder.exec('ROLLBACK');
    holder.close();
  }
  const created = await call('POST', '/v3/keys/create', { name: 'after the lock' });
  assert.is(created.status, 201);
});

sqlite.run();
