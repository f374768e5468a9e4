// A fixed sample of the mutant catalog on every test run: an echo and an expiry the schema cannot express, an error
// code and a v2 error kind, and one plain status change, each of them a mutant whose own suite run is the examples
// phase of one operation. The reference server (SQLite) runs behind the mutants' proxy; without a
// mutant the same runs pass (the proxy is transparent), and with each mutant they fail on one of the checks of the
// rule it breaks. The whole catalog is `npm run conformance:mutants` (its results are mutants/results.json).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import '../checks/index.ts';
import { parseOptions } from '../core/options.ts';
import { loadLedger } from '../core/rules.ts';
import { loadSpec } from '../core/spec.ts';
import { runSuite } from '../run.ts';
import { ADMIN, startServer, stopServer, type Server } from '../suites/reference-server.ts';
import { MUTANTS } from './catalog/index.ts';
import { startProxy, type Proxy } from './proxy.ts';

export const SAMPLE = [
  'listModels 200 → 201',
  'sync create without the echoed output',
  'stream session expires 300 s after creation',
  'code↔status swap: a 404 coded task_missing',
  'a v2 401 answered as FORBIDDEN',
];

const test = suite('a sample of the mutant catalog');
const rules = new Map(loadLedger().rules.map((rule) => [rule.id, rule]));
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

const sample = SAMPLE.map((name) => MUTANTS.find((m) => m.name === name)!);
const suiteRun = (args: string[]) =>
  runSuite(parseOptions(['--base-url', proxy.baseUrl, '--admin-token', ADMIN, '--no-progress', ...args]));

test('the sample is in the catalog, and each mutant runs the examples phase of its operations alone', () => {
  for (const [index, mutant] of sample.entries()) {
    assert.ok(mutant, `${SAMPLE[index]} is not in the catalog`);
    assert.equal(mutant.args?.slice(0, 2), ['--phases', 'examples'], mutant.name);
  }
});

test('without a mutant the sample runs pass; with each, one of its rule’s own checks fails', async () => {
  const operations = [...new Set(sample.flatMap((m) => m.args!.slice(m.args!.indexOf('--include') + 1)))];
  const baseline = await suiteRun(['--phases', 'examples', '--include', operations.join(',')]);
  assert.equal(
    [...baseline.recorder.failures.values()].map((f) => `${f.check} ${f.operation}: ${f.title}`),
    [],
  );
  for (const mutant of sample) {
    proxy.setMutant(mutant);
    const { recorder } = await suiteRun(mutant.args!);
    proxy.setMutant(undefined);
    const by = new Set([...recorder.failures.values()].map((f) => f.check));
    const own = mutant.rules.flatMap((id) => rules.get(id)?.checks ?? []);
    assert.ok(
      own.some((check) => by.has(check)),
      `${mutant.name}: failed ${[...by].join(', ') || 'nothing'}, none of ${own.join(', ')}`,
    );
  }
});

test.run();
