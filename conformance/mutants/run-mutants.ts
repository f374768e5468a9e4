// `npm run conformance:mutants`: proof that the suite catches what is wrong, rule by rule. The reference server runs
// (SQLite, with the tests' tiny chat model, so chat and SSE mutants meet real answers), the mutating proxy sits in
// front of it, and a first run through the proxy with no mutant must pass (the proxy is transparent); that run's
// rule trace says which phases and operations provoke each rule. Then each mutant of the catalog is applied alone
// and runs only what it needs: its own `args` (the phases and operations of the scenario that meets what it breaks),
// or, without them, the phases and operations the baseline's trace ties to the rules it breaks. A mutant is killed
// when the run fails; it proves a rule only when one of the rule's own checks failed (conformance/core/rules.ts).
// Results (mutant, rules, killed, by which checks, seconds) are written to conformance/mutants/results.json — merged
// into the file when only some mutants ran, so a partial run updates what it measured and keeps the rest.
//
//   npm run conformance:mutants                       every mutant
//   npm run conformance:mutants -- 410 'dead link'    the mutants whose names contain one of the words
//   npm run conformance:mutants -- --rule auth.v2.canonical-string   the mutants that break one of these rules
//   npm run conformance:mutants -- --stale            the mutants whose recorded result is stale or missing
//   npm run conformance:mutants -- --jobs 3           three mutants at a time, each through a proxy of its own
//   npm run conformance:mutants -- --no-write         do not touch results.json
// Mutants run two at a time by default: most of a run is waiting on the server (tasks, stream pace), so a second
// suite beside it costs little; each suite provisions accounts of its own, so their rate limits do not meet.
// Exit 0 when at least 90 % of the mutants run are killed, 1 otherwise, 2 when the proxy is not transparent.
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import * as prettier from 'prettier';
import '../checks/index.ts';
import type { RuleResult } from '../core/rule-trace.ts';
import { loadLedger, loadMutantResults, MUTANT_RESULTS_PATH, type MutantResult } from '../core/rules.ts';
import { parseOptions } from '../core/options.ts';
import { loadSpec } from '../core/spec.ts';
import { runSuite } from '../run.ts';
import { ADMIN, startServer, stopServer } from '../suites/reference-server.ts';
import { tinyModelPath } from '../../server/src/chat/tiny-model-fixture.ts';
import { MUTANTS as CATALOG } from './catalog/index.ts';
import { loadFingerprintSources, mutantFingerprint } from './fingerprint.ts';
import { startProxy, type Mutant, type Proxy } from './proxy.ts';

const THRESHOLD = 0.9;
/** The baseline runs every phase once (no --slow), so the trace ties each rule to the phases that provoke it. */
const BASELINE_PHASES = 'examples,coverage,fuzzing,negative,stateful,streaming,sse';

const USAGE =
  'usage: npm run conformance:mutants -- [name words…] [--rule <id>]… [--stale] [--jobs N] [--no-write] ' +
  '[--baseline-phases a,b]';

/** Phases from the cheapest to the dearest to run: a rule is met in the first of them that provoked it. */
const PHASE_COST = ['examples', 'negative', 'coverage', 'fuzzing', 'sse', 'streaming', 'stateful'];

/**
 * The suite arguments a mutant runs with: its own, or what the baseline's rule trace ties to its rules — the
 * cheapest phase whose cases provoked each rule, and the operations of the rules' scopes.
 */
export function targetedArgs(mutant: Mutant, trace: RuleResult[] | undefined): string[] {
  if (mutant.args) return mutant.args;
  const tied = (trace ?? []).filter((result) => mutant.rules.includes(result.id) && result.verdict !== 'not_run');
  const phases = [
    ...new Set(tied.flatMap((result) => PHASE_COST.find((phase) => result.phases.includes(phase)) ?? [])),
  ];
  const operations = [...new Set(tied.flatMap((result) => result.operations))];
  return [
    ...(phases.length ? ['--phases', phases.join(',')] : []),
    ...(operations.length ? ['--include', operations.join(',')] : []),
  ];
}

export function selectMutants(catalog: Mutant[], words: string[], rules: string[], stale?: Set<string>): Mutant[] {
  if (words.length === 0 && rules.length === 0 && !stale) return catalog;
  return catalog.filter(
    (m) =>
      words.some((word) => m.name.includes(word)) || m.rules.some((rule) => rules.includes(rule)) || stale?.has(m.name),
  );
}

/** The names of the catalog's mutants whose recorded result is missing or stands on something since changed. */
export function staleMutants(catalog: Mutant[], recorded: MutantResult[], fingerprints: Map<string, string>) {
  const byName = new Map(recorded.map((r) => [r.name, r]));
  return new Set(
    catalog.filter((m) => byName.get(m.name)?.fingerprint !== fingerprints.get(m.name)).map((m) => m.name),
  );
}

/** Runs `work` on every item, at most `jobs` at a time, each worker with its own resource. */
export async function pooled<T, R, W>(
  items: T[],
  workers: W[],
  work: (item: T, index: number, worker: W) => Promise<R>,
) {
  const out: R[] = new Array<R>(items.length);
  let next = 0;
  await Promise.all(
    workers.map(async (worker) => {
      while (next < items.length) {
        const index = next++;
        out[index] = await work(items[index]!, index, worker);
      }
    }),
  );
  return out;
}

/** Merges a run's results into the recorded ones: what ran replaces its entry; mutants gone from the catalog go. */
export function mergeResults(recorded: MutantResult[], fresh: MutantResult[], catalog: Mutant[]): MutantResult[] {
  const byName = new Map(recorded.map((r) => [r.name, r]));
  for (const result of fresh) byName.set(result.name, result);
  return catalog.flatMap((m) => {
    const result = byName.get(m.name);
    return result ? [result] : [];
  });
}

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      rule: { type: 'string', multiple: true },
      stale: { type: 'boolean' },
      jobs: { type: 'string', default: '2' },
      'no-write': { type: 'boolean' },
      'baseline-phases': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const jobs = Number(values.jobs);
  if (values.help || !Number.isInteger(jobs) || jobs < 1) {
    console.log(USAGE);
    return values.help ? 0 : 2;
  }
  const ledger = new Map(loadLedger().rules.map((rule) => [rule.id, rule]));
  const sources = loadFingerprintSources();
  const fingerprints = new Map(CATALOG.map((m) => [m.name, mutantFingerprint(m, ledger, sources)]));
  const recorded = loadMutantResults();
  const stale = values.stale ? staleMutants(CATALOG, recorded.mutants, fingerprints) : undefined;
  const mutants = selectMutants(CATALOG, positionals, values.rule ?? [], stale);
  if (mutants.length === 0) {
    console.log(values.stale ? 'every recorded result is up to date: no mutant to run' : 'no mutant matches');
    return 0;
  }
  const started = performance.now();
  // the tiny model serves both chat models the document lists, so a mutant of either meets a real answer
  const tiny = await tinyModelPath();
  const server = await startServer('sqlite', { SCRIBE_MINI_MODEL: tiny, SCRIBE_PRO_MODEL: tiny });
  const options = parseOptions(['--base-url', server.baseUrl]);
  const spec = loadSpec(options.openapi, options.asyncapi);
  const proxies: Proxy[] = [];
  for (let i = 0; i < Math.max(1, Math.min(jobs, mutants.length)); i++)
    proxies.push(await startProxy(server.baseUrl, spec));
  const suite = (proxy: Proxy, args: string[]) =>
    runSuite(parseOptions(['--base-url', proxy.baseUrl, '--admin-token', ADMIN, '--max-examples', '2', ...args]));
  let fresh: MutantResult[];
  try {
    // Only mutants without their own args need the whole trace; otherwise the baseline proves transparency alone.
    const needsTrace = mutants.some((m) => !m.args);
    const baselinePhases = values['baseline-phases'] ?? (needsTrace ? BASELINE_PHASES : 'examples,stateful');
    const baseline = await suite(proxies[0]!, ['--phases', baselinePhases]);
    if (baseline.recorder.failed) {
      console.log('The run through the proxy without a mutant failed: the proxy is not transparent.');
      for (const f of baseline.recorder.failures.values())
        console.log(`  ${f.check} ${f.operation}: ${f.title} — ${f.message}`);
      return 2;
    }
    console.log(
      `baseline through the proxy (${baselinePhases}): passed (${baseline.requests} requests, ` +
        `${(baseline.elapsedMs / 1000).toFixed(0)} s); ${mutants.length} mutants, ${proxies.length} at a time\n`,
    );
    fresh = await pooled(mutants, proxies, async (mutant, index, proxy) => {
      const args = targetedArgs(mutant, baseline.recorder.rules);
      const began = performance.now();
      proxy.setMutant(mutant);
      // a mutant that breaks what the suite needs to start (its accounts) ends that run: it proves no rule
      const run = await suite(proxy, args).catch((error: Error) => {
        console.log(`    ${mutant.name}: the run with this mutant did not finish: ${error.message.slice(0, 160)}`);
        return undefined;
      });
      proxy.setMutant(undefined);
      const recorder = run?.recorder;
      const by = [...new Set([...(recorder?.failures.values() ?? [])].map((f) => f.check))].sort();
      const seconds = Math.round((performance.now() - began) / 100) / 10;
      const label = `${String(index + 1).padStart(2)}. [${mutant.category}] ${mutant.name} (${mutant.rules.join(', ')})`;
      if (by.length > 0) console.log(`${label}: killed by ${by.join(', ')} in ${seconds} s`);
      else {
        const notRun = (recorder?.notRun ?? []).map((n) => `${n.what}: ${n.reason}`);
        console.log(
          `${label}: SURVIVED in ${seconds} s${notRun.length ? ` (not run: ${notRun.slice(0, 3).join('; ')})` : ''}`,
        );
      }
      const result: MutantResult = {
        name: mutant.name,
        category: mutant.category,
        rules: mutant.rules,
        killed: by.length > 0,
        by,
        seconds,
        fingerprint: fingerprints.get(mutant.name)!,
      };
      return result;
    });
  } finally {
    for (const proxy of proxies) await proxy.close();
    await stopServer(server);
  }
  const killed = fresh.filter((r) => r.killed).length;
  const score = fresh.length ? killed / fresh.length : 1;
  const total = (performance.now() - started) / 1000;
  console.log(
    `\nmutation score: ${killed}/${fresh.length} killed = ${(score * 100).toFixed(1)} % ` +
      `(threshold ${THRESHOLD * 100} %) in ${total.toFixed(0)} s, ${proxies.length} at a time`,
  );
  const survivors = fresh.filter((r) => !r.killed).map((r) => r.name);
  if (survivors.length > 0) console.log(`survivors: ${survivors.join('; ')}`);
  if (!values['no-write'] && fresh.length > 0) {
    const measured =
      `${new Date().toISOString().slice(0, 10)}: the last run took ${fresh.length} of the catalog's ${CATALOG.length} ` +
      `mutants, ${proxies.length} at a time, ${total.toFixed(0)} s in all with the server's start and the baseline ` +
      `(2 cores, shared)`;
    const mutantsNow = mergeResults(recorded.mutants, fresh, CATALOG);
    // written as the house's formatter writes it, so a run leaves the file as the lint wants it
    const text = JSON.stringify({ measured, mutants: mutantsNow });
    const config = (await prettier.resolveConfig(MUTANT_RESULTS_PATH)) ?? {};
    writeFileSync(MUTANT_RESULTS_PATH, await prettier.format(text, { ...config, filepath: MUTANT_RESULTS_PATH }));
    console.log(`results written to ${MUTANT_RESULTS_PATH}`);
  }
  return score >= THRESHOLD ? 0 : 1;
}

if (import.meta.url === `file://${process.argv[1]}`)
  main().then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      console.error(error);
      process.exitCode = 2;
    },
  );
