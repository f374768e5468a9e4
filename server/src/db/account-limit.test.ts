// Per-account limits across server processes: two real servers on one PostgreSQL database, each with its own data
// dir, receive a burst of parallel requests for one account, spread over both. For each limit — unfinished
// transcription tasks (sync and async uploads), live API keys, open stream sessions — exactly the limit succeeds, the
// rest get the contract's refusal (429 too_many_concurrent_jobs with Retry-After, 409 key_limit_exceeded), and
// nothing stays reserved for a refused request: the ledger's active reservations are exactly those of the accepted
// tasks and sessions, and the account's reserved sum equals them.
import { readFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { basename } from 'node:path';
import pg from 'pg';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { freePort } from '../../../test/support/processes.ts';
import { goforward } from '../test-support/audio.ts';
import { freshDatabase } from '../test-support/test-databases.ts';
import { createAccountOn, startScribe, type ScribeProcess } from '../test-support/scribe-process.ts';

const MAX_JOBS = 2;
const MAX_SESSIONS = 3;
/** The contract's x-limits.max_live_keys_per_account of createApiKey. */
const MAX_LIVE_KEYS = 100;

interface Reply {
  status: number;
  headers: Headers;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- assertions read arbitrary response fields
  body: any;
  text: string;
}

/**
 * An OpenAI-compatible transcription upstream that takes every request and never answers: the accepted tasks stay
 * unfinished (processing) for as long as the test needs, so the limit is what decides and no task ends meanwhile.
 */
async function silentUpstream(): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${port}/v1`,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function call(base: string, apiKey: string, path: string, init: RequestInit = {}): Promise<Reply> {
  const response = await fetch(`${base}${path}`, {
    method: 'POST',
    ...init,
    headers: { Authorization: `Bearer ${apiKey}`, ...init.headers },
  });
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: response.status, headers: response.headers, body, text };
}

/** A multipart upload of goforward.wav, the same for the sync and the async route. */
function upload(): RequestInit {
  const file = goforward('wav');
  const form = new FormData();
  form.set('language', 'en');
  form.set('file', new Blob([readFileSync(file)]), basename(file));
  return { body: form };
}

/** Counts replies by status; every reply must have one of `expected`. */
function byStatus(replies: Reply[], expected: number[]): Map<number, Reply[]> {
  const groups = new Map<number, Reply[]>();
  for (const reply of replies) {
    assert.ok(expected.includes(reply.status), `unexpected ${reply.status}: ${reply.text}`);
    groups.set(reply.status, [...(groups.get(reply.status) ?? []), reply]);
  }
  return groups;
}

function assertTooManyConcurrent(replies: Reply[]): void {
  for (const reply of replies) {
    assert.is(reply.body?.error?.code, 'too_many_concurrent_jobs', reply.text);
    assert.ok(Number(reply.headers.get('retry-after')) > 0, `Retry-After on ${reply.text}`);
  }
}

let database: Awaited<ReturnType<typeof freshDatabase>>;
let upstream: Awaited<ReturnType<typeof silentUpstream>>;
let nodes: ScribeProcess[] = [];
let sql: pg.Client;

/** The reservations of the account and its reserved sum, as the ledger holds them. */
async function reservationsOf(accountId: string) {
  const reservations = (
    await sql.query<{ id: string; status: string; amount_minor: string; reference: string }>(
      'SELECT id, status, amount_minor, reference FROM reservations WHERE account_id = $1',
      [accountId],
    )
  ).rows;
  const account = (
    await sql.query<{ reserved_minor: string; balance_minor: string }>(
      'SELECT reserved_minor, balance_minor FROM accounts WHERE id = $1',
      [accountId],
    )
  ).rows[0]!;
  const active = reservations.filter((r) => r.status === 'active');
  return {
    active,
    released: reservations.filter((r) => r.status === 'released'),
    others: reservations.filter((r) => r.status !== 'active' && r.status !== 'released'),
    activeSum: active.reduce((sum, r) => sum + Number(r.amount_minor), 0),
    reservedMinor: Number(account.reserved_minor),
    balanceMinor: Number(account.balance_minor),
  };
}

/** `count` requests sent at once, alternating between the two nodes. */
function burst(count: number, send: (base: string, i: number) => Promise<Reply>): Promise<Reply[]> {
  return Promise.all(Array.from({ length: count }, (_, i) => send(nodes[i % nodes.length]!.base, i)));
}

const test = suite('per-account limits hold across two server processes on one PostgreSQL database');

test.before(async () => {
  database = await freshDatabase('postgres');
  upstream = await silentUpstream();
  const env = {
    SCRIBE_TRANSCRIBE_MODEL: `openai:${upstream.url}#whisper-1`,
    SCRIBE_MAX_CONCURRENT_JOBS: String(MAX_JOBS),
    SCRIBE_STREAM_MAX_SESSIONS: String(MAX_SESSIONS),
  };
  const url = database.env.DATABASE_URL!;
  nodes = await Promise.all([
    startScribe('postgres', env, { joinDatabase: url }),
    startScribe('postgres', env, { joinDatabase: url }),
  ]);
  sql = new pg.Client({ connectionString: url });
  await sql.connect();
});

test.after(async () => {
  await sql?.end();
  await Promise.all(nodes.map((node) => node.stop()));
  await upstream?.close();
  await database?.drop();
});

test('unfinished transcription tasks: exactly the limit is accepted, sync and async alike', async () => {
  const account = await createAccountOn(nodes[0]!.base, 1000);
  const before = await reservationsOf(account.id);
  const replies = await burst(12, (base, i) => {
    const mode = i % 4 < 2 ? 'sync' : 'async';
    return call(base, account.apiKey, `/v3/transcriptions/${mode}/create`, upload());
  });
  const groups = byStatus(replies, [200, 202, 429]);
  const accepted = [...(groups.get(200) ?? []), ...(groups.get(202) ?? [])];
  assert.is(accepted.length, MAX_JOBS, replies.map((r) => r.status).join(' '));
  assertTooManyConcurrent(groups.get(429) ?? []);

  // Only the accepted tasks exist (a refused async upload is a 429, not a failed task), and they are still unfinished.
  const tasks = (
    await sql.query<{ id: string; status: string; reservation_id: string }>(
      "SELECT id, status, reservation_id FROM transcriptions WHERE account_id = $1 AND mode IN ('sync', 'async')",
      [account.id],
    )
  ).rows;
  assert.equal(
    tasks.map((t) => t.id).sort(),
    accepted.map((r) => (r.body.data?.id ?? r.body.transcription_id) as string).sort(),
  );
  for (const task of tasks) assert.ok(['ready', 'processing'].includes(task.status), task.status);

  const after = await reservationsOf(account.id);
  assert.equal(after.active.map((r) => r.id).sort(), tasks.map((t) => t.reservation_id).sort());
  assert.is(after.reservedMinor, after.activeSum, 'the account holds exactly the accepted tasks');
  assert.equal(after.others, []);
  assert.is(after.balanceMinor, before.balanceMinor, 'nothing was charged');
  // Requests that passed the first check (before the probe) were refused where the row is inserted, and gave back
  // what they had reserved: the second check is what held the limit.
  assert.ok(after.released.length >= 1, 'some requests were refused at the insert, after reserving');
});

test('live API keys: exactly up to the limit are issued, the rest are 409 key_limit_exceeded', async () => {
  const account = await createAccountOn(nodes[1]!.base, 10); // holds one live key already
  const requests = MAX_LIVE_KEYS + 20;
  const replies = await burst(requests, (base, i) =>
    call(base, account.apiKey, '/v3/keys/create', {
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: `burst ${i}` }),
    }),
  );
  const groups = byStatus(replies, [201, 409]);
  assert.is(groups.get(201)?.length, MAX_LIVE_KEYS - 1);
  assert.is(groups.get(409)?.length, requests - (MAX_LIVE_KEYS - 1));
  for (const reply of groups.get(409)!) assert.is(reply.body?.error?.code, 'key_limit_exceeded', reply.text);
  const live = await sql.query<{ n: string }>(
    'SELECT count(*) AS n FROM api_keys WHERE account_id = $1 AND revoked_at IS NULL',
    [account.id],
  );
  assert.is(Number(live.rows[0]!.n), MAX_LIVE_KEYS);
});

test('open stream sessions: exactly the limit is created, the rest are 429 with their reservations released', async () => {
  const account = await createAccountOn(nodes[0]!.base, 1000);
  const replies = await burst(12, (base) => call(base, account.apiKey, '/v3/transcriptions/stream/create'));
  const groups = byStatus(replies, [201, 429]);
  assert.is(groups.get(201)?.length, MAX_SESSIONS, replies.map((r) => r.status).join(' '));
  assertTooManyConcurrent(groups.get(429)!);

  const sessions = (
    await sql.query<{ id: string; reservation_id: string }>(
      'SELECT id, reservation_id FROM stream_sessions WHERE account_id = $1',
      [account.id],
    )
  ).rows;
  assert.equal(
    sessions.map((s) => s.id).sort(),
    groups
      .get(201)!
      .map((r) => r.body.session_id as string)
      .sort(),
  );
  const after = await reservationsOf(account.id);
  assert.equal(after.active.map((r) => r.id).sort(), sessions.map((s) => s.reservation_id).sort());
  assert.is(after.reservedMinor, after.activeSum, 'the account holds exactly the created sessions');
  assert.equal(after.others, []);
});

test.run();
