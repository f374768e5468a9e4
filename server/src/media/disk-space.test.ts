// A full data disk is answered for: the data dir (SQLite database and uploads) on a small filesystem of its own.
// Four concurrent uploads into room for two: two are accepted and their tasks complete, two are refused with 503
// `insufficient_storage` and Retry-After before their bodies are stored; below the free-space threshold /health is
// degraded (`checks.disk: error`) and uploads are refused; with the filesystem at 100 % every write is 503
// `insufficient_storage` or succeeds, never 500; after space is freed everything works again. Then the money audit:
// tasks final, nothing held, nothing captured twice, balance = top-ups − captures; no upload file is left behind.
import { randomBytes } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createApp, type App } from '../app.ts';
import { loadConfig } from '../config.ts';
import { GOFORWARD_RAW } from '../test-support/audio.ts';
import { checkResponse } from '../test-support/contract-check.ts';
import { auditProblems, moneyAudit } from '../test-support/money-audit.ts';
import { createSmallFilesystem, type SmallFilesystem } from '../test-support/small-filesystem.ts';

const MB = 1024 * 1024;
const THRESHOLD_MB = 2;
const ADMIN = 'disk-test-admin-token-5c09e2a4f1';

/** A WAV of goforward's 2 s of speech padded with a `junk` chunk to `bytes` (demuxers skip unknown chunks). */
function paddedWav(bytes: number): Buffer {
  const pcm = readFileSync(GOFORWARD_RAW);
  const junk = bytes - 44 - 8 - pcm.length;
  const header = Buffer.alloc(12 + 24 + 8);
  header.write('RIFF', 0);
  header.writeUInt32LE(bytes - 8, 4);
  header.write('WAVE', 8);
  header.write('fmt ', 12);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(16000, 24);
  header.writeUInt32LE(32000, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('junk', 36);
  header.writeUInt32LE(junk, 40);
  const dataHeader = Buffer.alloc(8);
  dataHeader.write('data', 0);
  dataHeader.writeUInt32LE(pcm.length, 4);
  return Buffer.concat([header, Buffer.alloc(junk), dataHeader, pcm]);
}

interface Answer {
  status: number;
  code: string | undefined;
  retryAfter: string | null;
  body: Record<string, unknown> & { transcription_id?: string; status?: string; checks?: { disk?: string } };
}

const test = suite('a full data disk');
let fs: SmallFilesystem;
let app: App;
let base: string;
let apiKey: string;
let accountId: string;

async function call(method: string, path: string, body?: { json?: unknown; form?: FormData }, admin = false) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: {
      ...(admin ? { 'X-Admin-Token': ADMIN } : { Authorization: `Bearer ${apiKey}` }),
      ...(body?.json ? { 'Content-Type': 'application/json' } : {}),
    },
    body: body?.json ? JSON.stringify(body.json) : body?.form,
  });
  const text = await response.text();
  const parsed = text ? JSON.parse(text) : {};
  checkResponse({ method, path }, { status: response.status, headers: response.headers, text, body: parsed });
  return {
    status: response.status,
    code: parsed.error?.code,
    retryAfter: response.headers.get('retry-after'),
    body: parsed,
  } as Answer;
}

function upload(bytes: Buffer) {
  const form = new FormData();
  form.set('file', new Blob([new Uint8Array(bytes)]), 'padded.wav');
  form.set('language', 'en');
  return call('POST', '/v3/transcriptions/async/upload', { form });
}

async function finalStatus(id: string): Promise<string> {
  const until = Date.now() + 60_000;
  for (;;) {
    const answer = await call('GET', `/v3/transcriptions/status/${id}`);
    const status = (answer.body.data as { status: string }).status;
    if (answer.status !== 200) throw new Error(`status of ${id}: ${answer.status} ${JSON.stringify(answer.body)}`);
    if (['completed', 'failed', 'cancelled'].includes(status)) return status;
    if (Date.now() > until) throw new Error(`task ${id} still ${status}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const isStorageRefusal = (answer: Answer) =>
  answer.status === 503 && answer.code === 'insufficient_storage' && Number(answer.retryAfter) >= 1;

test.before(async () => {
  fs = createSmallFilesystem(24);
  app = await createApp(
    loadConfig({
      NODE_ENV: 'test',
      SCRIBE_DATA_DIR: fs.dir,
      SCRIBE_SECRET_KEY: randomBytes(32).toString('hex'),
      SCRIBE_ADMIN_TOKEN: ADMIN,
      SCRIBE_MIN_FREE_DISK_MB: String(fs.minFreeMb(THRESHOLD_MB)),
      SCRIBE_WORKERS: '1',
      SCRIBE_JOB_SLOTS: '1',
      SCRIBE_AUTH_CACHE_MS: '60000',
      SCRIBE_RATE_LIMIT_RPS: '1000',
    }),
  );
  await new Promise<void>((resolve) => app.server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const account = await app.services.accounts.create({ balance: 1000 });
  apiKey = account.api_key!;
  accountId = account.account.id;
});

test.after(async () => {
  await app?.close();
  fs?.remove();
});

test('of four concurrent uploads into room for two, two are accepted and two refused with 503', async () => {
  // Each upload a little under half of what is free above the threshold: exactly two fit.
  const room = fs.freeBytes() - THRESHOLD_MB * MB;
  const size = Math.floor(room / 2 - MB);
  assert.ok(size > 4 * MB, `${Math.round(room / MB)} MB free is too little for the test`);
  const bytes = paddedWav(size);
  const answers = await Promise.all([upload(bytes), upload(bytes), upload(bytes), upload(bytes)]);
  const accepted = answers.filter((answer) => answer.status === 202);
  const refused = answers.filter(isStorageRefusal);
  assert.is(accepted.length, 2, JSON.stringify(answers.map((answer) => [answer.status, answer.code])));
  assert.is(refused.length, 2, JSON.stringify(answers.map((answer) => [answer.status, answer.code])));
  for (const answer of accepted) assert.is(await finalStatus(answer.body.transcription_id!), 'completed');
});

test('below the threshold /health is degraded and an upload is refused; at 100 % no write is a 500', async () => {
  fs.fill(THRESHOLD_MB * MB - 256 * 1024);
  const health = await call('GET', '/health');
  assert.is(health.status, 200);
  assert.is(health.body.status, 'degraded');
  assert.is(health.body.checks?.disk, 'error');
  assert.ok(isStorageRefusal(await upload(paddedWav(MB))), 'an upload below the threshold is refused');

  if (fs.mounted) {
    fs.fill(0);
    const writes: Answer[] = [];
    for (let i = 0; i < 20; i++) {
      writes.push(await call('POST', '/v3/keys/create', { json: { name: `full disk ${i}` } }));
      writes.push(await call('POST', `/admin/accounts/${accountId}/topup`, { json: { amount: 1 } }, true));
    }
    const statuses = writes.map((answer) => `${answer.status} ${answer.code ?? ''}`);
    assert.ok(
      writes.every((answer) => answer.status === 201 || answer.status === 200 || isStorageRefusal(answer)),
      statuses.join(', '),
    );
    assert.ok(writes.some(isStorageRefusal), `the full filesystem refused no write: ${statuses.join(', ')}`);
  }
});

test('once space is freed, uploads and writes work again; the money held and no upload file is left', async () => {
  fs.empty();
  const health = await call('GET', '/health');
  assert.is(health.body.checks?.disk, 'ok');
  const accepted = await upload(paddedWav(MB));
  assert.is(accepted.status, 202, JSON.stringify(accepted.body));
  assert.is(await finalStatus(accepted.body.transcription_id!), 'completed');
  assert.is((await call('POST', '/v3/keys/create', { json: { name: 'after' } })).status, 201);
  const audit = await moneyAudit(app.db);
  assert.equal(auditProblems(audit), []);
  assert.ok(audit.captured > 0, 'the completed tasks were charged');
  assert.equal(readdirSync(join(fs.dir, 'uploads')), []);
});

test.run();
