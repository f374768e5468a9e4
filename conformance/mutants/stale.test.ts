// The mutants of every rule a change touches, on every test run: a recorded result is stale when the mutant, the
// ledger entry of a rule it breaks, or the source of one of those rules' checks changed since it ran
// (`fingerprint.ts`). Each stale mutant runs here behind the proxy in front of the reference server (SQLite, the tiny
// chat model) and must fail one of its own rules' checks, as in `npm run conformance:mutants`. More stale mutants
// than the budget (`SCRIBE_STALE_MUTANTS_BUDGET_S`, recorded seconds, 300 by default) fail the run: the results
// are then out of date beyond what a test run re-proves, and `npm run conformance:mutants -- --stale` re-records them.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import '../checks/index.ts';
import { parseOptions } from '../core/options.ts';
import { loadLedger, loadMutantResults } from '../core/rules.ts';
import { loadSpec } from '../core/spec.ts';
import { runSuite } from '../run.ts';
import { ADMIN, startServer, stopServer } from '../suites/reference-server.ts';
import { tinyModelPath } from '../../server/src/chat/tiny-model-fixture.ts';
import { MUTANTS } from './catalog/index.ts';
import { loadFingerprintSources, mutantFingerprint } from './fingerprint.ts';
import { startProxy, type Proxy } from './proxy.ts';
import { pooled, staleMutants } from './run-mutants.ts';

const BUDGET_S = Number(process.env.SCRIBE_STALE_MUTANTS_BUDGET_S ?? 300);
/** What a mutant never run before is taken to cost. */
const UNKNOWN_S = 15;

const test = suite('the mutants of the rules a change touched');
const rules = new Map(loadLedger().rules.map((rule) => [rule.id, rule]));
const recorded = loadMutantResults().mutants;
const sources = loadFingerprintSources();
const fingerprints = new Map(MUTANTS.map((m) => [m.name, mutantFingerprint(m, rules, sources)]));
const stale = MUTANTS.filter((m) => staleMutants(MUTANTS, recorded, fingerprints).has(m.name));
const seconds = new Map(recorded.map((r) => [r.name, r.seconds]));
const cost = stale.reduce((sum, m) => sum + (seconds.get(m.name) ?? UNKNOWN_S), 0);

test('the stale mutants fit in the budget a test run gives them', () => {
  console.log(`  ${stale.length} of ${MUTANTS.length} recorded results are stale (${cost.toFixed(0)} s recorded)`);
  assert.ok(
    cost <= BUDGET_S,
    `${stale.length} stale mutants (${cost.toFixed(0)} s) exceed the ${BUDGET_S} s budget: ` +
      `npm run conformance:mutants -- --stale`,
  );
});

test('each stale mutant fails one of its own rules’ checks behind the proxy', async () => {
  // over the budget, the test above fails and says what re-records them; nothing is run here
  if (stale.length === 0 || cost > BUDGET_S) return;
  const tiny = await tinyModelPath();
  const server = await startServer('sqlite', { SCRIBE_MINI_MODEL: tiny, SCRIBE_PRO_MODEL: tiny });
  const options = parseOptions(['--base-url', server.baseUrl]);
  const spec = loadSpec(options.openapi, options.asyncapi);
  const proxies: Proxy[] = [await startProxy(server.baseUrl, spec), await startProxy(server.baseUrl, spec)];
  try {
    const verdicts = await pooled(stale, proxies, async (mutant, _index, proxy) => {
      proxy.setMutant(mutant);
      const args = ['--base-url', proxy.baseUrl, '--admin-token', ADMIN, '--no-progress', '--max-examples', '2'];
      // every mutant has its own arguments (run-mutants.test.ts), the same the recorded run took, so the budget's
      // recorded seconds are what these runs cost
      const run = await runSuite(parseOptions([...args, ...(mutant.args ?? [])])).catch(() => undefined);
      proxy.setMutant(undefined);
      const by = new Set([...(run?.recorder.failures.values() ?? [])].map((f) => f.check));
      const own = mutant.rules.flatMap((id) => rules.get(id)?.checks ?? []);
      return own.some((check) => by.has(check)) ? '' : `${mutant.name}: failed ${[...by].join(', ') || 'nothing'}`;
    });
    assert.equal(
      verdicts.filter(Boolean),
      [],
      'stale mutants that no check of their rules killed (the change left the rule unjudged)',
    );
  } finally {
    for (const proxy of proxies) await proxy.close();
    await stopServer(server);
  }
});

test.run();
