// Every request media type of an operation is exercised in every generating phase, not only the first one listed:
// the async create takes JSON first and a multipart form second, and a server that validates the JSON but lets any
// multipart form in must be caught. Header parameters (Idempotency-Key) are varied by the negative phase too. The reference server (SQLite) runs behind the mutants' proxy: without a mutant
// the multipart cases are sent in each phase and pass; with "accept an invalid multipart async create" the
// negative phase fails with negative_data_rejection on a multipart case.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parseOptions } from '../core/options.ts';
import { Recorder } from '../core/recorder.ts';
import { loadSpec } from '../core/spec.ts';
import { MUTANTS } from '../mutants/catalog/index.ts';
import { startProxy, type Proxy } from '../mutants/proxy.ts';
import { runSuite } from '../run.ts';
import { ADMIN, startServer, stopServer, type Server } from './reference-server.ts';

const test = suite('every request media type');
let server: Server;
let proxy: Proxy;

test.before(async () => {
  server = await startServer('sqlite');
  const options = parseOptions(['--base-url', server.baseUrl]);
  proxy = await startProxy(server.baseUrl, loadSpec(options.openapi, options.asyncapi));
});

test.after(async () => {
  await proxy?.close();
  if (server) await stopServer(server);
});

/** The suite on the async create only, with the label of every case it sent. */
async function run(phases: string) {
  const recorder = new Recorder();
  const labels: string[] = [];
  recorder.listener = (event) => {
    if (event.kind === 'case') labels.push(`${event.phase} ${event.text}`);
  };
  const options = parseOptions([
    '--base-url',
    proxy.baseUrl,
    '--admin-token',
    ADMIN,
    '--max-examples',
    '2',
    '--include',
    'createAsyncTranscription',
    '--phases',
    phases,
    '--no-progress',
  ]);
  await runSuite(options, recorder);
  return { recorder, labels };
}

test('the multipart form of the async create is sent in every generating phase, and passes', async () => {
  const { recorder, labels } = await run('examples,coverage,fuzzing,negative');
  const failures = [...recorder.failures.values()].map((f) => `${f.check}: ${f.title} — ${f.message}`);
  assert.equal(failures, []);
  for (const phase of ['examples', 'coverage', 'fuzzing', 'negative'])
    assert.ok(
      labels.some((label) => label.startsWith(`${phase} `) && label.includes('multipart/form-data')),
      `${phase} sent no multipart case:\n${labels.filter((l) => l.startsWith(phase)).join('\n')}`,
    );
  // the JSON variant is still there beside it, and the header parameter is varied too
  assert.ok(labels.some((label) => label.startsWith('negative ') && label.includes('(application/json)')));
  assert.ok(labels.some((label) => label.startsWith('negative ') && label.includes('header Idempotency-Key')));
});

test('a server that lets an invalid multipart async create in is caught by the negative phase', async () => {
  const mutant = MUTANTS.find((m) => m.name === 'accept an invalid multipart async create');
  assert.ok(mutant, 'the catalog has the mutant');
  proxy.setMutant(mutant);
  try {
    const { recorder } = await run('negative');
    const caught = [...recorder.failures.values()].filter(
      (f) => f.check === 'negative_data_rejection' && f.exchange?.request.body?.kind === 'multipart',
    );
    assert.ok(caught.length > 0, [...recorder.failures.values()].map((f) => f.title).join('; ') || 'no failure');
  } finally {
    proxy.setMutant(undefined);
  }
});

test.run();
