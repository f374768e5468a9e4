// The code samples of the bundled contract (`x-codeSamples`, written by `npm run generate` from each operation's
// first request example) run against a real reference server: every curl sample exits 0 with `--fail-with-body`
// (a 2xx answer), every Python sample (python3, standard library) exits 0, every TypeScript sample (scribe-client,
// and the official OpenAI SDK where it applies) finishes without throwing; and what each prints is the answer its
// "Expected output" comment shows: JSON valid against the operation's success schema, the text of a text answer. What
// a reader supplies is filled in: the server address and credentials, real ids of fresh resources for the path
// variables, `audio.wav` (a real recording) in the working directory, and the examples' placeholder hosts
// (media.example.com, hooks.example.com) replaced by a local media server.
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
import { canonicalString, sign } from '../../conformance/core/v1-signature.ts';
import {
  createAjv,
  escapePointer,
  openapi,
  operations,
  resolve,
  validatorAt,
  type Operation,
} from '../contract/documents.ts';

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
/** The operations the official OpenAI SDK calls as they are (its path under `baseURL = <server>/v3`, its shape). */
const openaiCompatible = [
  'createOpenAiChatCompletion',
  'createOpenAiEmbedding',
  'createOpenAiAudioTranscription',
  'listModels',
  'getModel',
];
const ajv = createAjv();

/**
 * Whether what a sample printed is the operation's success answer: JSON output valid against the schema of the
 * success response's JSON media type (the OpenAI SDK's model list prints the list's `data`), text for a text answer.
 * Returns what is wrong, or null.
 */
function checkOutput(op: Operation, sample: Sample, stdout: string): string | null {
  const status = Object.keys(op.responses).find((code) => code.startsWith('2'))!;
  const raw = op.responses[status] as { $ref?: string };
  const response = resolve<{ content?: Record<string, unknown> }>(openapi, raw);
  const types = Object.keys(response.content ?? {});
  if (!sample.source.includes(`Expected output (${status} ${types[0]})`))
    return `its source does not show the expected ${status} ${types[0]} output`;
  const base = raw.$ref
    ? `openapi.json${raw.$ref}`
    : `openapi.json#/paths/${escapePointer(op.path)}/${op.method}/responses/${status}`;
  if (types[0] === 'text/event-stream') {
    // Each `data:` payload is one event of the media type's schema; the stream ends with [DONE].
    const events = stdout
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => line.slice(6));
    if (events.length < 2 || events.at(-1) !== '[DONE]')
      return `it printed no event stream ending in [DONE]: ${stdout}`;
    const validate = validatorAt(ajv, `${base}/content/text~1event-stream/schema`);
    for (const event of events) {
      let value: unknown = event;
      try {
        value = JSON.parse(event);
      } catch {
        // [DONE] is the one payload that is not JSON
      }
      const wrong = validate(value);
      if (wrong) return `event ${event.slice(0, 200)}: ${wrong}`;
    }
    return null;
  }
  // A PDF is saved by the sample, which prints its first bytes.
  if (types[0] === 'application/pdf')
    return /^%PDF-\d\.\d/.test(stdout) ? null : `it printed no PDF signature: ${stdout}`;
  if (types[0] !== 'application/json') return stdout.trim() ? null : 'it printed nothing';
  let printed: unknown;
  try {
    printed = JSON.parse(stdout);
  } catch {
    return `it printed no JSON: ${stdout.slice(0, 300)}`;
  }
  if (op.operationId === 'listModels' && sample.label === 'OpenAI SDK') printed = { object: 'list', data: printed };
  return validatorAt(ajv, `${base}/content/application~1json/schema`)(printed);
}

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

async function completedV2(
  account: Account,
): Promise<{ id: string; results: Record<'text' | 'json' | 'pdf', string> }> {
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
  return { id, results: (read.data as { results: Record<'text' | 'json' | 'pdf', string> }).results };
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
    samplesOf(op).flatMap((s) =>
      [...s.source.matchAll(/\b([A-Z][A-Z0-9_]+_ID|RESULT_URL|V2_LINK_[A-Z]+)\b/g)].map((m) => m[1]!),
    ),
  );
  if (op.path.startsWith('/v2/') && (vars.has('TRANSCRIPTION_ID') || vars.has('RESULT_URL'))) {
    const v2 = await completedV2(account);
    env.TRANSCRIPTION_ID = v2.id;
    env.RESULT_URL = v2.results.text;
    // The link of the file this operation downloads (`/v2/results/{id}.pdf` → results.pdf): its query is the credential.
    const format = ({ txt: 'text', json: 'json', pdf: 'pdf' } as const)[op.path.split('.').pop() ?? ''];
    if (format) {
      const link = new URL(v2.results[format]);
      env.V2_LINK_EXPIRES = link.searchParams.get('expires') ?? '';
      env.V2_LINK_SIGNATURE = link.searchParams.get('signature') ?? '';
    }
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
  if (vars.has('MODEL_ID')) env.MODEL_ID = 'service-transcribe';
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
    // The cancel samples need a task still downloading (from /hang) when they run; the TypeScript ones run after
    // every curl and Python sample, minutes after their task was made, past the default 2-minute download limit.
    SCRIBE_DOWNLOAD_TIMEOUT_MS: '1800000',
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

test('every operation has a curl, a TypeScript and a Python sample; the OpenAI-compatible ones an OpenAI SDK one', () => {
  for (const op of operations) {
    const labels = samplesOf(op).map((s) => s.label);
    const expected = [
      'curl',
      'TypeScript',
      'Python',
      ...(openaiCompatible.includes(op.operationId) ? ['OpenAI SDK'] : []),
    ];
    assert.equal(labels, expected, op.operationId);
  }
});

test("every TypeScript sample compiles with tsc --strict, as a reader's project would", async () => {
  // Beside the repository's package.json (ES modules), importing the client's sources as the package's types do.
  const dir = mkdtempSync(join(root, '.samples-tsc-'));
  try {
    const files: string[] = [];
    for (const op of operations)
      for (const sample of samplesOf(op).filter((s) => s.lang === 'TypeScript')) {
        const file = join(dir, `${op.operationId}-${sample.label.replaceAll(' ', '')}.ts`);
        writeFileSync(file, `${localised(sample.source)}\nexport {};\n`);
        files.push(file);
      }
    const compiled = await runToEnd(
      process.execPath,
      [
        join(root, 'node_modules/typescript/bin/tsc'),
        ...['--noEmit', '--strict', '--noUncheckedIndexedAccess', '--skipLibCheck', '--allowImportingTsExtensions'],
        ...['--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2023'],
        ...['--lib', 'es2023,dom', '--types', 'node'],
        ...files,
      ],
      { cwd: root, env: process.env, timeoutMs: 180_000 },
    );
    assert.is(compiled.code, 0, compiled.stdout);
    console.log(`${files.length} TypeScript samples compile with tsc --strict`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('every sample runs against the reference server and prints the answer it shows', async () => {
  const failures: string[] = [];
  const tsRuns: { file: string; env: Record<string, string>; name: string; op: Operation; sample: Sample }[] = [];
  const ran: Record<string, number> = {};
  const passed = (sample: Sample) => (ran[sample.label] = (ran[sample.label] ?? 0) + 1);
  const judge = (op: Operation, sample: Sample, name: string, stdout: string) => {
    const wrong = checkOutput(op, sample, stdout);
    if (wrong) failures.push(`${name}: ${wrong}`);
    else passed(sample);
  };
  for (const op of operations) {
    for (const [n, sample] of samplesOf(op).entries()) {
      // Fresh resources for each sample: a curl sample that deletes or cancels must not leave its TypeScript
      // sibling a resource that is already gone.
      const env = await environmentFor(op);
      const name = `${op.operationId} (${sample.label})`;
      if (sample.lang === 'Shell' || sample.lang === 'Python') {
        const file = join(work, `sample-${op.operationId}.py`);
        if (sample.lang === 'Python') writeFileSync(file, localised(sample.source));
        const result =
          sample.lang === 'Shell'
            ? await runToEnd('bash', ['-c', `set -euo pipefail\n${localised(sample.source)}`], {
                cwd: work,
                env: { ...process.env, ...env },
                timeoutMs: 120_000,
              })
            : await runToEnd('python3', [file], { cwd: work, env: { ...process.env, ...env }, timeoutMs: 120_000 });
        if (result.code !== 0) failures.push(`${name}: exit ${result.code}\n${result.stdout}${result.stderr}`);
        else judge(op, sample, name, result.stdout);
      } else {
        const file = join(root, `.sample-${process.pid}-${op.operationId}-${n}.ts`);
        writeFileSync(file, localised(sample.source));
        tsRuns.push({ file, env, name, op, sample });
      }
    }
  }
  // All TypeScript samples in one process (each imported in turn with its own variables), so tsx starts once. Each
  // sample's output is what it printed between its BEGIN and OK lines (stdout to a pipe is synchronous on Linux).
  const runner = join(root, `.samples-runner-${process.pid}.ts`);
  writeFileSync(
    runner,
    `process.chdir(${JSON.stringify(work)});
const runs = ${JSON.stringify(tsRuns.map(({ file, env, name }) => ({ file, env, name })))};
let failed = 0;
for (const run of runs) {
  Object.assign(process.env, run.env);
  console.log('SAMPLE BEGIN ' + run.name);
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
    let ended = 0;
    for (const run of tsRuns) {
      const begin = result.stdout.indexOf(`SAMPLE BEGIN ${run.name}\n`);
      const end = result.stdout.slice(begin).search(/^SAMPLE (OK|FAILED) /m);
      if (begin < 0 || end < 0) continue;
      ended += 1;
      const section = result.stdout.slice(begin, begin + end);
      const outcome = result.stdout.slice(begin + end).split('\n')[0]!;
      if (outcome.startsWith('SAMPLE FAILED')) failures.push(outcome);
      else judge(run.op, run.sample, run.name, section.slice(section.indexOf('\n') + 1));
    }
    if (ended !== tsRuns.length) failures.push(`the TypeScript runner stopped: ${result.stderr.slice(-1500)}`);
  } finally {
    for (const { file } of tsRuns) rmSync(file, { force: true });
    rmSync(runner, { force: true });
  }
  assert.equal(failures, [], 'samples that failed');
  const total = Object.values(ran).reduce((sum, count) => sum + count, 0);
  assert.is(
    total,
    operations.reduce((sum, op) => sum + samplesOf(op).length, 0),
  );
  assert.is(ran.Python, operations.length);
  console.log(
    `${total} code samples ran against the reference server and printed their answer: ` +
      Object.entries(ran)
        .map(([label, count]) => `${label} ${count}`)
        .join(', '),
  );
});

test.run();
