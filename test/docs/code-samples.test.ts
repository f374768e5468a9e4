// The code samples of the bundled contract (`x-codeSamples`, written by `npm run generate` from each operation's
// first request example) run against a real reference server: every curl sample exits 0 with `--fail-with-body`
// (a 2xx answer), every TypeScript sample (scribe-client, and the official OpenAI SDK on the drop-in endpoints)
// finishes without throwing. What a reader supplies is filled in: the server address and credentials, real ids of
// fresh resources for the path variables, `audio.wav` (a real recording) in the working directory, and the
// examples' placeholder hosts (media.example.com, hooks.example.com) replaced by a local media server.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Server } from 'node:http';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { goforward } from '../../server/src/test-support/audio.ts';
import { ADMIN_TOKEN } from '../../server/src/test-support/test-databases.ts';
import { mediaServer } from '../../server/src/test-support/media-server.ts';
import { startScribe, type ScribeProcess } from '../../server/src/test-support/scribe-process.ts';
import { runToEnd } from '../support/processes.ts';
import { canonicalString, sign } from '../support/sign-v2.ts';
import { operations, type Operation } from '../contract/documents.ts';

const root = new URL('../../', import.meta.url).pathname;
const test = suite('x-codeSamples');
const work = mkdtempSync(join(tmpdir(), 'scribe-samples-'));
const tiny = join(work, 'tiny.gguf');
let server: ScribeProcess | undefined;
let media: { url: string; server: Server } | undefined;
let base = '';

interface Sample {
  lang: string;
  label: string;
  source: string;
}
const samplesOf = (op: Operation) => (op['x-codeSamples'] ?? []) as Sample[];
const dropIns = ['createOpenAiChatCompletion', 'createOpenAiEmbedding', 'createOpenAiAudioTranscription'];

interface Account {
  id: string;
  apiKey: string;
  publicKey: string;
  secret: string;
}

async function call(path: string, init: RequestInit & { json?: unknown } = {}): Promise<Record<string, unknown>> {
  const headers = new Headers(init.headers);
  let body = init.body;
  if (init.json !== undefined) {
    headers.set('Content-Type', 'application/json');
    body = JSON.stringify(init.json);
  }
  const response = await fetch(`${base}${path}`, { ...init, headers, body }).catch((error: Error) => {
    // fetch's own message is only "fetch failed": the reason (refused, reset, closed) is in its cause, and whether
    // the server is still running, with its last log lines, says which side went away.
    const child = server?.process.process;
    const ended = child && (child.exitCode ?? child.signalCode);
    const state = !child ? 'not started' : ended !== null ? `ended (${ended})` : 'running';
    throw new Error(
      `${init.method ?? 'GET'} ${path}: ${error.message}: ${String(error.cause)}; the server is ${state}; its last ` +
        `output:\n${server?.process.output().slice(-3000)}`,
      { cause: error },
    );
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${init.method ?? 'GET'} ${path}: ${response.status} ${text}`);
  return JSON.parse(text) as Record<string, unknown>;
}

async function newAccount(): Promise<Account> {
  const made = await call('/admin/accounts', {
    method: 'POST',
    headers: { 'X-Admin-Token': ADMIN_TOKEN },
    json: { balance: 1000 },
  });
  const account = made.account as { id: string };
  return {
    id: account.id,
    apiKey: String(made.api_key),
    publicKey: String(made.public_key),
    secret: String(made.secret),
  };
}

const bearer = (account: Account) => ({ Authorization: `Bearer ${account.apiKey}` });
const audioForm = (fields: Record<string, string> = {}) => {
  const form = new FormData();
  form.set('file', new Blob([readFileSync(join(work, 'audio.wav'))]), 'audio.wav');
  for (const [name, value] of Object.entries(fields)) form.set(name, value);
  return form;
};
const signedHeaders = (account: Account) => {
  const timestamp = String(Math.floor(Date.now() / 1000));
  return {
    'X-Public-Key': account.publicKey,
    'X-Timestamp': timestamp,
    'X-Signature': sign(account.secret, canonicalString(account.publicKey, timestamp)),
  };
};

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  for (let i = 0; i < 600; i++) {
    const value = await read();
    if (done(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`timed out waiting for ${what}`);
}

async function completedTask(account: Account): Promise<string> {
  const created = await call('/v3/transcriptions/sync/create', {
    method: 'POST',
    headers: bearer(account),
    body: audioForm({ language: 'en' }),
  });
  const id = (created.data as { id: string }).id;
  await until(
    () => call(`/v3/transcriptions/status/${id}`, { headers: bearer(account) }),
    (task) => ['completed', 'failed'].includes((task.data as { status: string }).status),
    'a sync task',
  );
  return id;
}

async function completedV2(account: Account): Promise<{ id: string; resultUrl: string }> {
  const signed = () => signedHeaders(account);
  const created = await call('/v2/transcriptions', {
    method: 'POST',
    headers: signed(),
    body: audioForm({ language: 'en' }),
  });
  const id = String(created.transcription_id);
  const read = await until(
    () => call(`/v2/transcriptions/${id}`, { headers: signed() }),
    (task) => (task.data as { status: string }).status === 'completed',
    'a v2 transcription',
  );
  return { id, resultUrl: (read.data as { results: { text: string } }).results.text };
}

/** The variables a sample of this operation needs, each naming a fresh resource of a fresh account. */
async function environmentFor(op: Operation): Promise<Record<string, string>> {
  const account = await newAccount();
  const env: Record<string, string> = {
    SCRIBE_BASE_URL: base,
    SCRIBE_API_KEY: account.apiKey,
    SCRIBE_PUBLIC_KEY: account.publicKey,
    SCRIBE_SECRET: account.secret,
    SCRIBE_ADMIN_TOKEN: ADMIN_TOKEN,
    ACCOUNT_ID: account.id,
  };
  const vars = new Set(
    samplesOf(op).flatMap((s) => [...s.source.matchAll(/\b([A-Z][A-Z0-9_]+_ID|RESULT_URL)\b/g)].map((m) => m[1]!)),
  );
  if (op.path.startsWith('/v2/') && (vars.has('TRANSCRIPTION_ID') || vars.has('RESULT_URL'))) {
    const v2 = await completedV2(account);
    env.TRANSCRIPTION_ID = v2.id;
    env.RESULT_URL = v2.resultUrl;
  } else if (vars.has('TRANSCRIPTION_ID')) {
    env.TRANSCRIPTION_ID =
      op.operationId === 'cancelTranscription'
        ? String(
            (
              await call('/v3/transcriptions/async/create', {
                method: 'POST',
                headers: bearer(account),
                json: { url: `${media!.url}/hang`, language: 'en' },
              })
            ).transcription_id,
          )
        : await completedTask(account);
  }
  if (vars.has('KEY_ID'))
    env.KEY_ID = String((await call('/v3/keys/create', { method: 'POST', headers: bearer(account), json: {} })).id);
  if (vars.has('WEBHOOK_ID'))
    env.WEBHOOK_ID = String(
      (
        await call('/v3/webhooks/create', {
          method: 'POST',
          headers: bearer(account),
          json: { url: `${media!.url}/hooks`, events: ['transcription.completed'] },
        })
      ).id,
    );
  return env;
}

/** A sample as a reader would run it, with the examples' placeholder hosts pointed at the local media server. */
const localised = (source: string) =>
  source
    .replace(/https:\/\/media\.example\.com\/[^\s'"]*/g, `${media!.url}/goforward.wav`)
    .replace(/https:\/\/hooks\.example\.com\/[^\s'"]*/g, `${media!.url}/hooks`)
    .replace("from 'scribe-client'", `from ${JSON.stringify(join(root, 'client/src/index.ts'))}`);

test.before(async () => {
  copyFileSync(goforward('wav'), join(work, 'audio.wav'));
  spawnSync(process.execPath, [join(root, 'server/bin/scribe.mjs'), 'models', 'make-tiny', '--out', tiny]);
  media = await mediaServer();
  server = await startScribe('sqlite', {
    SCRIBE_URL_ALLOW_HOSTS: '127.0.0.1',
    SCRIBE_MINI_MODEL: tiny,
    SCRIBE_CHAT_CONTEXT: '256',
  });
  base = server.base;
});

test.after(async () => {
  await server?.stop();
  media?.server.close();
  rmSync(work, { recursive: true, force: true });
});

test('every operation has a curl and a scribe-client sample; the OpenAI-compatible ones an OpenAI SDK sample too', () => {
  for (const op of operations) {
    const labels = samplesOf(op).map((s) => s.label);
    const expected = ['curl', 'scribe-client', ...(dropIns.includes(op.operationId) ? ['OpenAI SDK'] : [])];
    assert.equal(labels, expected, op.operationId);
  }
});

test('every sample runs against the reference server', async () => {
  const failures: string[] = [];
  const tsRuns: { file: string; env: Record<string, string>; name: string }[] = [];
  let ran = 0;
  for (const op of operations) {
    for (const [n, sample] of samplesOf(op).entries()) {
      // Fresh resources for each sample: a curl sample that deletes or cancels must not leave its TypeScript
      // sibling a resource that is already gone.
      const env = await environmentFor(op);
      const name = `${op.operationId} (${sample.label})`;
      if (sample.lang === 'Shell') {
        const result = await runToEnd('bash', ['-c', `set -euo pipefail\n${localised(sample.source)}`], {
          cwd: work,
          env: { ...process.env, ...env },
          timeoutMs: 120_000,
        });
        ran += 1;
        if (result.code !== 0) failures.push(`${name}: exit ${result.code}\n${result.stdout}${result.stderr}`);
      } else {
        const file = join(root, `.sample-${process.pid}-${op.operationId}-${n}.ts`);
        writeFileSync(file, localised(sample.source));
        tsRuns.push({ file, env, name });
      }
    }
  }
  // All TypeScript samples in one process (each imported in turn with its own variables), so tsx starts once.
  const runner = join(root, `.samples-runner-${process.pid}.ts`);
  writeFileSync(
    runner,
    `process.chdir(${JSON.stringify(work)});
const runs = ${JSON.stringify(tsRuns)};
let failed = 0;
for (const run of runs) {
  Object.assign(process.env, run.env);
  try {
    await import(run.file);
    console.log('SAMPLE OK ' + run.name);
  } catch (error) {
    failed += 1;
    console.log('SAMPLE FAILED ' + run.name + ': ' + (error instanceof Error ? error.message : String(error)));
  }
}
process.exit(failed ? 1 : 0);
`,
  );
  try {
    const result = await runToEnd(process.execPath, ['--import', 'tsx', runner], {
      cwd: root,
      env: process.env,
      timeoutMs: 300_000,
    });
    const ok = result.stdout.match(/^SAMPLE OK /gm)?.length ?? 0;
    ran += ok;
    failures.push(...(result.stdout.match(/^SAMPLE FAILED .*$/gm) ?? []));
    if (ok + (result.stdout.match(/^SAMPLE FAILED /gm)?.length ?? 0) !== tsRuns.length)
      failures.push(`the TypeScript runner stopped: ${result.stderr.slice(-1500)}`);
  } finally {
    for (const { file } of tsRuns) rmSync(file, { force: true });
    rmSync(runner, { force: true });
  }
  assert.equal(failures, [], 'samples that failed');
  assert.ok(ran >= operations.length * 2, `only ${ran} samples ran`);
  console.log(`${ran} code samples ran against the reference server`);
});

test.run();
