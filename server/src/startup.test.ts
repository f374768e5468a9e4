// A fresh machine, as a new user meets it: without the speech engine the server still starts and says why (the log,
// /health, a 503 engine_unavailable with the install hint on every transcription route, everything else working);
// a setting that cannot be used ends the server or the CLI with one line naming it and exit code 1, never a stack
// trace; and the PostgreSQL tests run although nothing answers at SCRIBE_TEST_POSTGRES_URL.
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { freePort, runNodeToEnd, STACK_LINE, type Ended } from '../../test/support/processes.ts';
import { goforward } from './test-support/audio.ts';
import { databaseKinds, useHarness } from './test-support/harness.ts';
import { startScribe } from './test-support/scribe-process.ts';

const emptyModelDir = mkdtempSync(join(tmpdir(), 'scribe-no-model-'));
const INSTALL = 'apt-get install libpocketsphinx3 pocketsphinx-en-us';

const lines = (output: string) => output.split('\n').filter((line) => line.trim() !== '');

for (const kind of databaseKinds) {
  const test = suite(`without the speech engine (${kind})`);
  const harness = useHarness(test, kind, { env: { SCRIBE_POCKETSPHINX_MODEL_DIR: emptyModelDir } });

  test('/health is degraded with the reason; /v3/models lists the engine as unavailable', async () => {
    const h = harness();
    const health = await h.request('GET', '/health');
    assert.is(health.status, 200, health.text);
    assert.is(health.body.status, 'degraded');
    assert.is(health.body.checks.database, 'ok');
    assert.is(health.body.checks.engines.transcription, 'unavailable');
    assert.is(health.body.checks.engines.embedding, 'available');
    assert.ok(health.body.checks.unavailable_reasons.transcription.includes(INSTALL), health.text);
    assert.ok(!health.text.includes(emptyModelDir), 'the reason shown to clients names no server path');

    const account = await h.provision({ balance: 10 });
    const models = await h.v3(account.apiKey, 'GET', '/v3/models');
    assert.is(models.status, 200, models.text);
    const transcribe = models.body.data.find((model: { id: string }) => model.id === 'service-transcribe');
    assert.is(transcribe.status, 'unavailable');
  });

  test('every transcription route answers 503 engine_unavailable with the install hint', async () => {
    const h = harness();
    const account = await h.provision({ balance: 10 });
    const file = goforward('wav');
    const upload = (fields: Record<string, string>) => {
      const form = new FormData();
      for (const [name, value] of Object.entries(fields)) form.set(name, value);
      form.set('file', new Blob([readFileSync(file)]), basename(file));
      return form;
    };
    const v3Replies = {
      sync: await h.v3(account.apiKey, 'POST', '/v3/transcriptions/sync/create', { form: upload({ language: 'en' }) }),
      asyncUrl: await h.v3(account.apiKey, 'POST', '/v3/transcriptions/async/create', {
        json: { url: 'https://example.org/talk.mp3', language: 'en' },
      }),
      asyncUpload: await h.v3(account.apiKey, 'POST', '/v3/transcriptions/async/create', {
        form: upload({ language: 'en' }),
      }),
      stream: await h.v3(account.apiKey, 'POST', '/v3/transcriptions/stream/create'),
      openai: await h.v3(account.apiKey, 'POST', '/v3/audio/transcriptions', {
        form: upload({ model: 'service-transcribe', language: 'en' }),
      }),
    };
    for (const [route, reply] of Object.entries(v3Replies)) {
      assert.is(reply.status, 503, `${route}: ${reply.text}`);
      assert.is(reply.body.error.code, 'engine_unavailable', route);
      assert.is(reply.body.error.type, 'server_error', route);
      assert.ok(reply.body.error.message.includes(INSTALL), `${route}: ${reply.text}`);
    }
    const v2 = await h.signed(account.signer, 'POST', '/v2/transcriptions', { form: upload({ language: 'en' }) });
    assert.is(v2.status, 503, v2.text);
    assert.is(v2.body.error, 'ENGINE_UNAVAILABLE');
    assert.ok(v2.body.message.includes(INSTALL), v2.text);

    // Nothing was created, reserved or charged.
    const list = await h.v3(account.apiKey, 'GET', '/v3/transcriptions/list');
    assert.is(list.status, 200, list.text);
    assert.equal(list.body.data, []);
    const row = await h.db('accounts').where({ id: account.id }).first();
    assert.is(Number(row.balance_minor), 1000);
  });

  test('the other routes answer 200', async () => {
    const h = harness();
    const account = await h.provision({ balance: 10 });
    const calculate = await h.v3(account.apiKey, 'POST', '/v3/billing/calculate', {
      json: { type: 'transcription', duration_seconds: 90, priority: 'queue' },
    });
    assert.is(calculate.status, 200, calculate.text);
    const keys = await h.v3(account.apiKey, 'GET', '/v3/keys/list');
    assert.is(keys.status, 200, keys.text);
    const usage = await h.signed(account.signer, 'GET', '/v1/billing/usage');
    assert.is(usage.status, 200, usage.text);
  });

  test.run();
}

const process_ = suite('the server process and the CLI');

process_(
  'npm start without the speech engine: listens, one log line says what to install, no stack trace',
  async () => {
    const server = await startScribe('sqlite', {
      SCRIBE_POCKETSPHINX_MODEL_DIR: emptyModelDir,
      NODE_ENV: 'development',
    });
    try {
      const health = await fetch(`${server.base}/health`);
      const body = (await health.json()) as {
        status: string;
        checks: { unavailable_reasons: { transcription: string } };
      };
      assert.is(health.status, 200);
      assert.is(body.status, 'degraded');
      assert.ok(body.checks.unavailable_reasons.transcription.includes(INSTALL));
      const output = server.process.output();
      const warnings = lines(output).filter((line) => line.includes('the speech engine is not available'));
      assert.is(warnings.length, 1, output);
      assert.ok(warnings[0]!.includes(INSTALL), warnings[0]);
      assert.ok(warnings[0]!.includes(emptyModelDir), 'the log line names the directory it looked in');
      assert.not.match(output, STACK_LINE);
    } finally {
      await server.stop();
    }
  },
);

process_('a bad setting ends the server with one line naming it, exit code 1 and no stack trace', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'scribe-bad-setting-'));
  const taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  const takenPort = String((taken.address() as { port: number }).port);
  const deadPort = await freePort();
  const cases: [string, Record<string, string>, RegExp][] = [
    ['PORT', { PORT: takenPort }, new RegExp(`^scribe: PORT 127\\.0\\.0\\.1:${takenPort} is taken .*EADDRINUSE`)],
    ['SCRIBE_PRICES', { SCRIBE_PRICES: '{not json' }, /^scribe: SCRIBE_PRICES is not valid JSON: .*position 1/],
    [
      'DATABASE_URL',
      { DATABASE_URL: `postgres://postgres:secret@127.0.0.1:${deadPort}/scribe` },
      new RegExp(
        `^scribe: DATABASE_URL postgres://postgres:\\*\\*\\*@127\\.0\\.0\\.1:${deadPort}/scribe does not answer \\(ECONNREFUSED\\)$`,
      ),
    ],
    ['SCRIBE_SECRET_KEY', { SCRIBE_SECRET_KEY: 'not-hex' }, /^scribe: SCRIBE_SECRET_KEY must be 64 hex characters/],
    // The published and hand-typed secrets: the documentation's example key, all-equal bytes, a placeholder token and
    // one too short to resist guessing.
    ['published key', { SCRIBE_SECRET_KEY: '0'.repeat(64) }, /^scribe: SCRIBE_SECRET_KEY is a published example value/],
    ['all-equal key', { SCRIBE_SECRET_KEY: 'c'.repeat(64) }, /^scribe: SCRIBE_SECRET_KEY is not random/],
    [
      'placeholder token',
      { SCRIBE_ADMIN_TOKEN: 'change-me' },
      /^scribe: SCRIBE_ADMIN_TOKEN is a published placeholder/,
    ],
    [
      'short token',
      { SCRIBE_ADMIN_TOKEN: '9f3a61c0d2e4b7' },
      /^scribe: SCRIBE_ADMIN_TOKEN must be at least 24 characters, got 14: generate one \(openssl rand -hex 24\)$/,
    ],
    [
      'SCRIBE_WORKER_NICE',
      { SCRIBE_WORKER_NICE: '25' },
      /^scribe: SCRIBE_WORKER_NICE must be a nice value from 0 to 19/,
    ],
  ];
  try {
    const results = await Promise.all(
      cases.map(
        ([, env]) => runNodeToEnd(['server/bin/start.mjs'], { SCRIBE_DATA_DIR: dataDir, ...env }), // what `npm start` runs
      ),
    );
    cases.forEach(([setting, , expected], i) => {
      const { code, output } = results[i]!;
      assert.is(code, 1, `${setting}: exit ${code}\n${output}`);
      assert.is(lines(output).length, 1, `${setting}: one line, got:\n${output}`);
      assert.match(output.trim(), expected, setting);
      assert.not.match(output, STACK_LINE, setting);
      assert.not.ok(output.includes('secret@'), `${setting}: the password is not printed`);
    });
  } finally {
    taken.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

process_('the CLI: a clear line and a non-zero exit, never a stack trace', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'scribe-cli-'));
  const deadPort = await freePort();
  const env = {
    SCRIBE_DATA_DIR: dataDir,
    SCRIBE_SECRET_KEY: 'fc5735694ae31909ba6a2dfb5452c3765410a4076667aa8838e81633303464d7',
  };
  const cli = (args: string[], more: Record<string, string> = {}) =>
    runNodeToEnd(['server/bin/scribe.mjs', ...args], { ...env, ...more });
  try {
    const [unknownCommand, unknownFlag, badPrices, deadDatabase, missingAccount] = await Promise.all([
      cli(['frobnicate']),
      cli(['admin', 'account', 'create', '--bogus']),
      cli(['admin', 'account', 'create'], { SCRIBE_PRICES: '{not json' }),
      cli(['admin', 'account', 'create'], { DATABASE_URL: `postgres://postgres@127.0.0.1:${deadPort}/x` }),
      cli(['admin', 'account', 'show', '00000000-0000-4000-8000-000000000000']),
    ]);
    const expectations: [string, Ended, RegExp][] = [
      ['unknown command', unknownCommand, /^scribe: Unknown command: frobnicate/],
      ['unknown flag', unknownFlag, /^scribe: Unknown option '--bogus'/],
      ['bad SCRIBE_PRICES', badPrices, /^scribe: SCRIBE_PRICES is not valid JSON/],
      ['dead DATABASE_URL', deadDatabase, /^scribe: DATABASE_URL .* does not answer \(ECONNREFUSED\)$/],
      ['missing account', missingAccount, /^scribe: not_found: /],
    ];
    for (const [name, { code, output }, expected] of expectations) {
      assert.is(code, 1, `${name}: exit ${code}\n${output}`);
      assert.match(lines(output)[0] ?? '', expected, `${name}:\n${output}`);
      assert.not.match(output, STACK_LINE, name);
    }
    // A command that works still works (and prints its result, not an error).
    const created = await cli(['admin', 'account', 'create', '--json']);
    assert.is(created.code, 0, created.output);
    assert.ok((JSON.parse(lines(created.output).at(-1)!) as { api_key: string }).api_key.startsWith('sk_'));
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

process_('before npm install, npm start and the scribe CLI say so in one line (exit 1, no stack trace)', async () => {
  // The two bins as a checkout without node_modules has them: nothing they import can be found from there.
  const checkout = mkdtempSync(join(tmpdir(), 'scribe-not-installed-'));
  try {
    cpSync(new URL('../bin', import.meta.url).pathname, join(checkout, 'server/bin'), { recursive: true });
    for (const bin of ['start.mjs', 'scribe.mjs']) {
      const { code, output } = await runNodeToEnd([join(checkout, 'server/bin', bin), 'serve'], {});
      assert.is(code, 1, `${bin}: exit ${code}\n${output}`);
      assert.equal(lines(output), ['scribe: the dependencies are not installed: run npm install first.'], bin);
    }
  } finally {
    rmSync(checkout, { recursive: true, force: true });
  }
});

process_('the PostgreSQL tests run when nothing answers at SCRIBE_TEST_POSTGRES_URL', async () => {
  const deadPort = await freePort();
  const { code, output } = await runNodeToEnd(['--import', 'tsx', 'server/src/db/migrations.test.ts'], {
    SCRIBE_TEST_POSTGRES_URL: `postgres://postgres@127.0.0.1:${deadPort}/postgres`,
    NODE_ENV: 'test',
    NO_COLOR: '1',
  });
  assert.is(code, 0, output);
  assert.match(output, new RegExp(`No PostgreSQL answers at postgres://postgres@127\\.0\\.0\\.1:${deadPort}/postgres`));
  assert.match(output, /migrations \(postgres\)/);
  const total = Number(/Total:\s+(\d+)/.exec(output)?.[1]);
  const passed = Number(/Passed:\s+(\d+)/.exec(output)?.[1]);
  assert.ok(total > 0 && passed === total, output);
});

process_.after(() => rmSync(emptyModelDir, { recursive: true, force: true }));
process_.run();
