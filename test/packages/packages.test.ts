// The published packages as a user gets them: `npm pack --workspaces`, each tarball installed with
// `npm install --omit=dev` into its own empty project outside the repository, then used against a real reference
// server: the installed suite run in full (0 failures), a strict TypeScript consumer of scribe-client exercising every
// helper, the installed scribe-client CLI, and a client made by a second generator (openapi-typescript +
// openapi-fetch) from generated/openapi.json. Install times and sizes are printed for the record.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { wavOf } from '../../conformance/core/audio.ts';
import { ADMIN, startServer, stopServer, type Server } from '../../conformance/suites/reference-server.ts';
import { runToEnd, type Ran } from '../support/processes.ts';
import { packLock } from '../../scripts/docs/pack-packages.mjs';
import {
  chatAnswerOn,
  createAccountOn,
  startScribe,
  type ScribeProcess,
} from '../../server/src/test-support/scribe-process.ts';

const root = new URL('../../', import.meta.url).pathname;
const fixtures = new URL('./fixtures/', import.meta.url).pathname;
const tsc = join(root, 'node_modules/typescript/bin/tsc');
const GOFORWARD = '/usr/share/pocketsphinx/test/data/goforward.raw';
const NATIVE_OR_SERVER = ['better-sqlite3', 'koffi', 'node-llama-cpp', '@ffmpeg-installer', 'koa', 'openapi-backend'];
/** Exact versions of the second generator's packages and of the consumers' type packages (all work on Node 20). */
const PINNED = {
  openapiTypescript: 'openapi-typescript@7.13.0',
  openapiFetch: 'openapi-fetch@0.17.0',
  typesNode: '@types/node@20.19.43',
  typesWs: '@types/ws@8.18.2',
};

const run = (command: string, args: string[], options: { cwd?: string; env?: Record<string, string> } = {}) =>
  runToEnd(command, args, { cwd: options.cwd, env: { ...process.env, NO_COLOR: '1', ...options.env } });

const npm = (args: string[], cwd: string) =>
  run('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], { cwd });

function emptyProject(name: string): string {
  const dir = mkdtempSync(join(tmpdir(), `scribe-${name}-`));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, private: true, type: 'module' }));
  return dir;
}

function sizeOf(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.size;
  return readdirSync(path).reduce((sum, entry) => sum + sizeOf(join(path, entry)), 0);
}

/** Every installed package (name → folder), scoped ones included. */
function installedPackages(modules: string): Map<string, string> {
  const found = new Map<string, string>();
  const visit = (dir: string) => {
    if (!existsSync(dir)) return;
    for (const entry of readdirSync(dir)) {
      if (entry.startsWith('.')) continue;
      const path = join(dir, entry);
      if (entry.startsWith('@')) {
        for (const scoped of readdirSync(path)) found.set(`${entry}/${scoped}`, join(path, scoped));
      } else found.set(entry, path);
    }
  };
  visit(modules);
  for (const path of [...found.values()]) visit(join(path, 'node_modules'));
  return found;
}

/** A native module: a compiled addon, a node-gyp build, or an install script. */
function nativeSigns(folder: string): string[] {
  const signs: string[] = [];
  const manifest = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as {
    gypfile?: boolean;
    scripts?: Record<string, string>;
  };
  if (manifest.gypfile || existsSync(join(folder, 'binding.gyp'))) signs.push('node-gyp');
  for (const script of ['preinstall', 'install', 'postinstall'])
    if (manifest.scripts?.[script]) signs.push(`${script} script`);
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory() && entry.name !== 'node_modules') walk(join(dir, entry.name));
      else if (entry.name.endsWith('.node')) signs.push(`addon ${entry.name}`);
    }
  };
  walk(folder);
  return signs;
}

/** Compiles `consumer.mts` of a project the way a strict TypeScript user would (into `out/`); fails on any error. */
async function compileStrict(project: string, extra: Record<string, unknown> = {}) {
  const compilerOptions = {
    target: 'ES2023',
    lib: ['ES2023', 'DOM', 'DOM.Iterable'],
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    strict: true,
    noUncheckedIndexedAccess: true,
    types: ['node'],
    outDir: 'out',
    ...extra,
  };
  writeFileSync(join(project, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['consumer.mts'] }));
  const compiled = await run(process.execPath, [tsc, '-p', project]);
  assert.is(compiled.code, 0, compiled.stdout);
}

/** A fresh account with a v3 key and a key pair (each test its own, so one test's calls never rate-limit another). */
async function newAccount(server: Server) {
  const created = await fetch(`${server.baseUrl}/admin/accounts`, {
    method: 'POST',
    headers: { 'X-Admin-Token': ADMIN, 'Content-Type': 'application/json' },
    body: JSON.stringify({ balance: 1000, issue_keys: true }),
  });
  assert.is(created.status, 201);
  const account = (await created.json()) as { api_key: string; public_key: string; secret: string };
  return { apiKey: account.api_key, publicKey: account.public_key, secret: account.secret };
}

/**
 * Work that does not wait on the tests before it starts in `before` and runs beside them: most of the file's time is
 * waiting (npm installs, the installed suite pacing itself under the server's rate limit), not computing. Each is
 * awaited by the test that asserts on it; a failure is marked handled here so it fails that test, not the process.
 */
function early<T>(work: Promise<T>): Promise<T> {
  work.catch(() => undefined);
  return work;
}

/** The installed suite's run on a server of its own (its accounts, lists and task queue are nobody else's). */
async function installedSuiteRun(suiteProject: string, work: string, started: Promise<Server>) {
  const server = await started;
  try {
    const junit = join(work, 'conformance.xml');
    const ndjson = join(work, 'conformance.ndjson');
    const result = await run(
      join(suiteProject, 'node_modules/.bin/scribe-conformance'),
      // Every phase and check of the installed bundle, with one fuzzed case per operation: the fuzzing depth is
      // the source suite's test (conformance/suites/reference-server.test.ts); this one is about the package.
      [
        '--base-url',
        server.baseUrl,
        '--admin-token',
        ADMIN,
        '--max-examples',
        '1',
        '--report',
        `junit=${junit},ndjson=${ndjson}`,
      ],
      { cwd: suiteProject },
    );
    return { result, junit, ndjson };
  } finally {
    await stopServer(server);
  }
}

/** A project with the second generator and the consumer's type packages installed. */
async function openapiFetchProject(): Promise<{ project: string; installed: Ran }> {
  const project = emptyProject('openapi-fetch-user');
  const installed = await npm(['install', PINNED.openapiTypescript, PINNED.openapiFetch, PINNED.typesNode], project);
  return { project, installed };
}

const packages = suite<{
  work: string;
  tarballs: Record<string, string>;
  suiteProject: string;
  clientProject: string;
  server?: Server;
  wav: string;
  suiteRun: Promise<Awaited<ReturnType<typeof installedSuiteRun>>>;
  clientTypes: Promise<Ran>;
  tinyModel: Promise<Ran>;
  chatServer: Promise<ScribeProcess>;
  openapiFetch: Promise<{ project: string; installed: Ran }>;
}>('packages');

packages.before(async (context) => {
  context.work = mkdtempSync(join(tmpdir(), 'scribe-packages-'));
  // Nothing of these needs the tarballs: they start now and overlap the packing and installing.
  // The strict consumer calls every helper back to back: a server limit of 10 requests per second would answer some
  // of them 429 on a fast machine (the suite's own server keeps the default limit: the suite checks it).
  const server = early(startServer('sqlite', { SCRIBE_RATE_LIMIT_RPS: '1000' }));
  const suiteServer = early(startServer('sqlite'));
  context.openapiFetch = early(openapiFetchProject());
  context.tinyModel = early(
    run(process.execPath, [
      join(root, 'server/bin/scribe.mjs'),
      'models',
      'make-tiny',
      '--out',
      join(context.work, 'tiny.gguf'),
    ]),
  );
  // The chat test's server, on the model just made (a failed make leaves it unstarted; that test reports why).
  context.chatServer = early(
    context.tinyModel.then((made) => {
      if (made.code !== 0) throw new Error(`make-tiny failed: ${made.stderr}`);
      return startScribe('sqlite', { SCRIBE_MINI_MODEL: join(context.work, 'tiny.gguf'), SCRIBE_CHAT_CONTEXT: '256' });
    }),
  );

  // Under the lock every pack of the workspaces takes (a docs build packs them too, through the same dist/ folders),
  // and postpack's cleaning checked before the lock is let go.
  const packed = await run(
    'flock',
    [
      packLock(root),
      'bash',
      '-c',
      `npm pack --workspaces --json --pack-destination ${JSON.stringify(context.work)} --loglevel=error && ` +
        `{ ! test -e client/dist && ! test -e conformance/dist || { echo 'postpack left a dist/ folder' >&2; exit 1; }; }`,
    ],
    { cwd: root },
  );
  assert.is(packed.code, 0, packed.stderr);
  const entries = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('['))) as { name: string; filename: string }[];
  context.tarballs = Object.fromEntries(entries.map((entry) => [entry.name, join(context.work, entry.filename)]));

  for (const [name, tarball] of Object.entries(context.tarballs)) {
    const project = emptyProject(`${name}-user`);
    const started = performance.now();
    const installed = await npm(['install', '--omit=dev', tarball], project);
    const seconds = (performance.now() - started) / 1000;
    assert.is(installed.code, 0, installed.stderr);
    const modules = join(project, 'node_modules');
    console.log(
      `${name}: tarball ${(statSync(tarball).size / 1024).toFixed(0)} kB; npm install --omit=dev ${seconds.toFixed(1)} s; ` +
        `node_modules ${(sizeOf(modules) / 1024 / 1024).toFixed(1)} MB in ${installedPackages(modules).size} packages`,
    );
    if (name === 'scribe-conformance') context.suiteProject = project;
    else context.clientProject = project;
  }
  // After the sizes above were taken: the strict consumer's type packages, and the installed suite's full run (the
  // longest step, mostly waiting under the rate limit), both beside the tests that follow.
  context.clientTypes = early(npm(['install', '--no-save', PINNED.typesNode, PINNED.typesWs], context.clientProject));
  context.suiteRun = early(installedSuiteRun(context.suiteProject, context.work, suiteServer));

  context.server = await server;
  context.wav = join(context.work, 'goforward.wav');
  writeFileSync(context.wav, wavOf(readFileSync(GOFORWARD), 16_000));
});

packages.after(async (context) => {
  // The work started in `before` ends before its folders go.
  await Promise.allSettled([context.suiteRun, context.clientTypes, context.tinyModel, context.openapiFetch]);
  if (context.server) await stopServer(context.server);
  await (await context.chatServer?.catch(() => undefined))?.stop();
  const openapiFetch = await context.openapiFetch?.catch(() => undefined);
  for (const dir of [context.work, context.suiteProject, context.clientProject, openapiFetch?.project])
    if (dir) rmSync(dir, { recursive: true, force: true });
});

packages('npm pack --workspaces makes exactly scribe-conformance and scribe-client, at the contract version', (c) => {
  assert.equal(Object.keys(c.tarballs).sort(), ['scribe-client', 'scribe-conformance']);
  const contract = JSON.parse(readFileSync(join(root, 'generated/openapi.json'), 'utf8')) as {
    info: { version: string };
  };
  for (const name of Object.keys(c.tarballs)) {
    const manifest = JSON.parse(readFileSync(join(root, name.replace('scribe-', ''), 'package.json'), 'utf8'));
    assert.is(manifest.version, contract.info.version, `${name} version`);
  }
});

packages('the installed suite holds no native module and nothing of the server', (c) => {
  const installed = installedPackages(join(c.suiteProject, 'node_modules'));
  for (const name of installed.keys())
    assert.not.ok(
      NATIVE_OR_SERVER.some((bad) => name === bad || name.startsWith(`${bad}/`)),
      `${name} is installed`,
    );
  const native = [...installed].flatMap(([name, folder]) => nativeSigns(folder).map((sign) => `${name}: ${sign}`));
  assert.equal(native, []);
  assert.ok(installed.has('scribe-conformance'));
  assert.not.ok(installed.has('tsx'), 'the package runs without a TypeScript loader');
});

packages('a bad invocation of the installed suite is exit 2 with one line', async (c) => {
  const result = await run(join(c.suiteProject, 'node_modules/.bin/scribe-conformance'), ['--base-url']);
  assert.is(result.code, 2);
  assert.not.match(result.stderr, /\n\s+at /);
});

packages('a strict TypeScript consumer of scribe-client uses every helper against the server', async (c) => {
  const project = c.clientProject;
  const account = await newAccount(c.server!);
  const types = await c.clientTypes;
  assert.is(types.code, 0, types.stderr);
  writeFileSync(join(project, 'consumer.mts'), readFileSync(join(fixtures, 'client-consumer.mts')));
  await compileStrict(project, { skipLibCheck: false });
  const result = await run(process.execPath, [join(project, 'out/consumer.mjs')], {
    cwd: project,
    env: {
      SCRIBE_BASE_URL: c.server!.baseUrl,
      SCRIBE_API_KEY: account.apiKey,
      SCRIBE_PUBLIC_KEY: account.publicKey,
      SCRIBE_SECRET: account.secret,
      WAV_FILE: c.wav,
      RAW_FILE: GOFORWARD,
    },
  });
  assert.is(result.code, 0, result.stderr);
  const seen = JSON.parse(result.stdout.trim().split('\n').pop()!);
  assert.is(seen.typed, 5);
  assert.ok(seen.modelIds.includes('service-transcribe'));
  assert.is(seen.task.status, 'completed');
  assert.is(seen.task.text, 'go forward ten meters');
  assert.is(seen.task.statusAgain, 'completed');
  assert.ok(seen.task.progress.at(-1).startsWith('completed:'), seen.task.progress.join(' '));
  assert.equal(seen.webhook, {
    received: 1,
    type: 'transcription.completed',
    taskId: seen.webhook.taskId,
    tamperedRejected: true,
  });
  assert.ok(seen.webhook.taskId);
  assert.equal(seen.signedStatus, [200, 200]);
  assert.is(seen.stream.config.sample_rate, 16_000);
  assert.is(seen.stream.finals.join(' ').trim(), 'go forward ten meters');
  assert.ok(seen.stream.partials > 0, 'partials arrive before the final');
  assert.is(seen.stream.completed.type, 'session.completed');
  assert.ok(seen.stream.completed.duration > 2.5);
});

packages('the installed scribe-client CLI transcribes (text and SRT) and streams a real recording', async (c) => {
  const cli = join(c.clientProject, 'node_modules/.bin/scribe-client');
  const env = { SCRIBE_BASE_URL: c.server!.baseUrl, SCRIBE_API_KEY: (await newAccount(c.server!)).apiKey };
  const text = await run(cli, ['transcribe', c.wav, '--language', 'en'], { env });
  assert.is(text.code, 0, text.stderr);
  assert.is(text.stdout.trim(), 'go forward ten meters');
  assert.match(text.stderr, /completed 100%/); // progress lines when stderr is not a terminal

  const srtPath = join(c.work, 'goforward.srt');
  const srt = await run(cli, ['transcribe', c.wav, '--language', 'en', '--format', 'srt', '--out', srtPath], { env });
  assert.is(srt.code, 0, srt.stderr);
  assert.match(
    readFileSync(srtPath, 'utf8'),
    /^1\r?\n\d\d:\d\d:\d\d,\d{3} --> \d\d:\d\d:\d\d,\d{3}\r?\ngo forward ten meters/,
  );

  const streamed = await run(cli, ['stream', GOFORWARD, '--fast'], { env });
  assert.is(streamed.code, 0, streamed.stderr);
  assert.match(streamed.stdout, /\] go forward ten meters\n/);
  assert.match(streamed.stdout, /s of audio, 1 min billed, cost /);
});

packages('the installed CLI prints a chat answer token by token from a real model (the tiny test model)', async (c) => {
  const made = await c.tinyModel;
  assert.is(made.code, 0, made.stderr);
  const chatServer = await c.chatServer;
  const key = (await createAccountOn(chatServer.base, 100)).apiKey;
  const cli = join(c.clientProject, 'node_modules/.bin/scribe-client');
  const env = { SCRIBE_BASE_URL: chatServer.base, SCRIBE_API_KEY: key };
  // At temperature 0 the answer is the model's likeliest one, so the streamed text can be checked against the same
  // request answered in one piece: every token printed, none lost or repeated.
  const answer = await run(cli, ['chat', 'Hello', '--max-tokens', '12', '--temperature', '0'], { env });
  assert.is(answer.code, 0, answer.stderr);
  const expected = await chatAnswerOn(chatServer.base, key, {
    model: 'service-mini',
    messages: [{ role: 'user', content: 'Hello' }],
    max_tokens: 12,
    temperature: 0,
  });
  assert.ok(expected.trim().length > 0, 'the tiny model answers "Hello" with text');
  assert.is(answer.stdout, `${expected}\n`);
});

packages('the CLI reports bad input as one line and a non-zero exit', async (c) => {
  const cli = join(c.clientProject, 'node_modules/.bin/scribe-client');
  const env = { SCRIBE_BASE_URL: c.server!.baseUrl, SCRIBE_API_KEY: (await newAccount(c.server!)).apiKey };
  const cases: [string[], Record<string, string>, number, RegExp][] = [
    [['transcribe', c.wav], { SCRIBE_API_KEY: '' }, 2, /SCRIBE_API_KEY is not set/],
    [['transcribe', join(c.work, 'missing.wav')], env, 1, /cannot read .*missing\.wav: ENOENT/],
    [['transcribe', c.wav, '--format', 'doc'], env, 2, /--format must be one of/],
    [['transcribe', c.wav], { ...env, SCRIBE_API_KEY: 'sk_live_wrong' }, 1, /401 invalid_api_key/],
    [['transcribe', c.wav, '--language', 'ru'], env, 1, /400 unsupported_language/],
    [['chat', 'Hello'], env, 1, /503 engine_unavailable/],
    [['chat', 'Hello', '--temperature', 'warm'], env, 2, /--temperature must be a number/],
    [['chat', 'Hello', '--temperature', '5'], env, 1, /400 invalid_parameter.*temperature/],
    [['stream', c.wav], { ...env, SCRIBE_BASE_URL: 'http://127.0.0.1:9' }, 1, /no answer from the server/],
  ];
  for (const [args, extra, code, message] of cases) {
    const result = await run(cli, args, { env: { ...env, ...extra } });
    assert.is(result.code, code, `${args.join(' ')}: ${result.stderr}`);
    assert.match(result.stderr, message);
    assert.is(result.stderr.trim().split('\n').length, 1, `one line: ${result.stderr}`);
  }
});

packages(
  'a second generator (openapi-typescript + openapi-fetch) makes a strict client that calls the server',
  async (c) => {
    const { project, installed } = await c.openapiFetch;
    assert.is(installed.code, 0, installed.stderr);
    const generated = await run(
      join(project, 'node_modules/.bin/openapi-typescript'),
      [join(root, 'generated/openapi.json'), '--output', join(project, 'schema.d.ts')],
      { cwd: project },
    );
    assert.is(generated.code, 0, generated.stderr);
    writeFileSync(join(project, 'consumer.mts'), readFileSync(join(fixtures, 'openapi-fetch-consumer.mts')));
    await compileStrict(project);
    const result = await run(process.execPath, [join(project, 'out/consumer.mjs')], {
      cwd: project,
      env: { SCRIBE_BASE_URL: c.server!.baseUrl, SCRIBE_API_KEY: (await newAccount(c.server!)).apiKey },
    });
    assert.is(result.code, 0, result.stderr);
    const seen = JSON.parse(result.stdout.trim());
    assert.is(seen.status, 200);
    assert.ok(seen.ids.includes('service-embedding'));
    assert.is(seen.quoteStatus, 200);
    assert.type(seen.amount, 'number');
  },
);

// Last: the run started in `before` has gone on beside every test above.
packages('the installed suite passes against the reference server (admin token; JUnit and NDJSON)', async (c) => {
  const { result, junit, ndjson } = await c.suiteRun;
  assert.is(result.code, 0, `${result.stdout.slice(-3000)}\n${result.stderr}`);
  const summary = readFileSync(ndjson, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .find((record) => record.type === 'summary');
  assert.ok(summary, 'an NDJSON summary line');
  assert.match(readFileSync(junit, 'utf8'), /<testsuites/);
  console.log(`installed suite: ${JSON.stringify(summary)}`);
});

packages.run();
