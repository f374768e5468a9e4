// The generator matrix: five TypeScript client generators people use (generators.ts), pinned in this folder's own
// package.json, and the newest releases of orval and @hey-api/openapi-ts (which need Node 22: run by the Node 24 binary
// pinned beside them in newest/package.json), installed by the test when missing, each generating a client from
// generated/openapi.json as it is now, type-checked with `tsc --strict`, and driven through one scenario
// (scenarios/<id>.scenario.mts; a newer release runs the older one's) against a reference server with the real speech
// engine and the tiny chat model. Each call is tried as generated and, where that fails, with the generator's one
// documented option; a call whose scenario code does not compile counts as failing. The matrix is printed, and every
// cell must match expected.ts.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { signV2Request } from '../../client/src/sign-v2-request.ts';
import { wavOf } from '../../conformance/core/audio.ts';
import { startScribe, type ScribeProcess } from '../../server/src/test-support/scribe-process.ts';
import { ADMIN_TOKEN } from '../../server/src/test-support/test-databases.ts';
import { installPins, pinsInstalled } from '../support/pinned-install.ts';
import { runToEnd } from '../support/processes.ts';
import { CALLS, EXPECTED, GENERATED_ERRORS, OPERATION_CALLS } from './expected.ts';
import { GENERATORS, INSTALLS } from './generators.ts';
import { runGenerator, type GeneratorRun } from './run-generator.ts';
import { printMatrix } from './print-matrix.ts';

const here = new URL('./', import.meta.url).pathname;
const root = new URL('../../', import.meta.url).pathname;
const GOFORWARD = '/usr/share/pocketsphinx/test/data/goforward.raw';
/** Generators worked on at once: generation and tsc are CPU-bound and the machine may have two cores. */
const AT_ONCE = 2;

const matrix = suite<{ work: string; server?: ScribeProcess; runs: GeneratorRun[] }>('generator matrix');

async function account(base: string) {
  const created = await fetch(`${base}/admin/accounts`, {
    method: 'POST',
    headers: { 'X-Admin-Token': ADMIN_TOKEN, 'Content-Type': 'application/json' },
    body: JSON.stringify({ balance: 1000, issue_keys: true }),
  });
  assert.is(created.status, 201);
  return (await created.json()) as { api_key: string; public_key: string; secret: string };
}

/** A task completed outside any generated client, so the poll and result calls are tried whatever the upload does. */
async function completedTask(base: string, apiKey: string, wav: string): Promise<string> {
  const form = new FormData();
  form.set('file', new Blob([readFileSync(wav)], { type: 'audio/wav' }), 'goforward.wav');
  form.set('language', 'en');
  const headers = { Authorization: `Bearer ${apiKey}` };
  const created = await fetch(`${base}/v3/transcriptions/sync/create`, { method: 'POST', headers, body: form });
  const id = ((await created.json()) as { data: { id: string } }).data.id;
  for (let tries = 0; tries < 600; tries += 1) {
    const status = (await (await fetch(`${base}/v3/transcriptions/status/${id}`, { headers })).json()) as {
      data: { status: string };
    };
    if (status.data.status === 'completed') return id;
    assert.ok(!['failed', 'cancelled'].includes(status.data.status), `the test's own task ${status.data.status}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error('the test task did not complete in 120 s');
}

/** The signed result links of a completed task, read with a v2-signed status call outside any generated client. */
async function v2ResultLinks(base: string, keys: { public_key: string; secret: string }, id: string) {
  const request = await signV2Request(new Request(`${base}/v2/transcriptions/${id}`), {
    publicKey: keys.public_key,
    secret: keys.secret,
  });
  const answer = await fetch(request);
  assert.is(answer.status, 200, await answer.clone().text());
  const { data } = (await answer.json()) as { data: { results: Record<string, string> | null } };
  assert.ok(data.results?.pdf, `no result links: ${JSON.stringify(data)}`);
  return data.results;
}

matrix.before(async (context) => {
  context.work = mkdtempSync(join(tmpdir(), 'scribe-generators-'));
  context.runs = [];
  for (const folder of INSTALLS.filter((folder) => !pinsInstalled(folder))) {
    const seconds = await installPins(folder);
    console.log(`generators installed in ${relative(here, folder) || '.'} in ${seconds.toFixed(0)} s`);
  }
  const tiny = join(context.work, 'tiny.gguf');
  const made = await runToEnd(process.execPath, [
    join(root, 'server/bin/scribe.mjs'),
    'models',
    'make-tiny',
    '--out',
    tiny,
  ]);
  assert.is(made.code, 0, made.stderr);
  context.server = await startScribe('sqlite', {
    SCRIBE_MINI_MODEL: tiny,
    SCRIBE_CHAT_CONTEXT: '256',
    // One account for every scenario: generators run two at a time, with three tasks each.
    SCRIBE_MAX_CONCURRENT_JOBS: '50',
  });
});

matrix.after(async (context) => {
  await context.server?.stop();
  if (context.work) rmSync(context.work, { recursive: true, force: true });
});

matrix('every generator generates, compiles strict and runs its scenario as the table expects', async (context) => {
  const base = context.server!.base;
  const wav = join(context.work, 'goforward.wav');
  writeFileSync(wav, wavOf(readFileSync(GOFORWARD), 16_000));
  const setup = await account(base);
  const completed = await completedTask(base, setup.api_key, wav);
  const links = await v2ResultLinks(base, setup, completed);
  const started = performance.now();
  // SCRIBE_GENERATORS=id,id runs some of them (while working on one generator's scenario).
  const only = process.env.SCRIBE_GENERATORS?.split(',');
  const queue = GENERATORS.filter((generator) => !only || only.includes(generator.id));
  const worker = async () => {
    for (let generator = queue.shift(); generator; generator = queue.shift()) {
      const env = {
        SCRIBE_BASE_URL: base,
        SCRIBE_API_KEY: setup.api_key,
        SCRIBE_PUBLIC_KEY: setup.public_key,
        SCRIBE_SECRET: setup.secret,
        WAV_FILE: wav,
        COMPLETED_TASK_ID: completed,
        V2_RESULT_LINKS: JSON.stringify(links),
      };
      context.runs.push(await runGenerator(generator, context.work, env));
    }
  };
  await Promise.all(Array.from({ length: AT_ONCE }, worker));
  context.runs.sort((a, b) => GENERATORS.indexOf(a.generator) - GENERATORS.indexOf(b.generator));
  console.log(printMatrix(context.runs, (performance.now() - started) / 1000));

  const problems: string[] = [];
  for (const run of context.runs) {
    const id = run.generator.id;
    if (run.generated.code !== 0)
      problems.push(`${id}: generation exit ${run.generated.code}: ${run.generated.output.slice(-400)}`);
    if (!run.outcomes.length)
      problems.push(`${id}: the scenario printed no outcomes (exit ${run.ran.code}): ${run.ran.stderr.slice(-600)}`);
    if (run.compile.generated.length !== GENERATED_ERRORS[id])
      problems.push(
        `${id}: ${run.compile.generated.length} strict errors in the generated code, expected ${GENERATED_ERRORS[id]}`,
      );
    for (const call of CALLS) {
      const absent = run.statuses[call] === 'absent' && OPERATION_CALLS[call] !== undefined;
      const expected = absent ? 'absent' : EXPECTED[id]?.[call];
      if (run.statuses[call] !== expected)
        problems.push(
          `${id} × ${call}: expected ${expected}, got ${run.statuses[call]}${run.details[call] ? ` (${run.details[call]})` : ''}`,
        );
    }
  }
  if (problems.length > 0) {
    // What the table would be now, to paste into expected.ts once each flip is understood.
    const table = Object.fromEntries(context.runs.map((run) => [run.generator.id, run.statuses]));
    const errors = Object.fromEntries(context.runs.map((run) => [run.generator.id, run.compile.generated.length]));
    console.log(`observed GENERATED_ERRORS = ${JSON.stringify(errors)}\nobserved EXPECTED = ${JSON.stringify(table)}`);
  }
  assert.equal(problems, [], `flipped or broken:\n  ${problems.join('\n  ')}`);
});

matrix.run();
