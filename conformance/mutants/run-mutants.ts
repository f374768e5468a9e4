// `npm run conformance:mutants`: proof that the suite catches what is wrong. The reference server runs (SQLite),
// the mutating proxy sits in front of it, a first run through the proxy with no mutant must pass (the proxy is
// transparent), then each mutant of the catalog is applied alone and the suite run it names must fail (killed).
// Prints every mutant killed or survived (with what the suite reported) and the score; exit 0 at ≥ 90 %. The server
// has the tests' tiny chat model, so the chat and SSE mutants meet real answers. Arguments, if any, keep only the
// mutants whose names contain one of them (`npm run conformance:mutants -- 410 'dead link'`).
import '../checks/index.ts';
import { parseOptions } from '../core/options.ts';
import { loadSpec } from '../core/spec.ts';
import { runSuite } from '../run.ts';
import { ADMIN, startServer, stopServer } from '../suites/reference-server.ts';
import { tinyModelPath } from '../../server/src/chat/tiny-model-fixture.ts';
import { MUTANTS as CATALOG } from './catalog.ts';
import { startProxy } from './proxy.ts';

const THRESHOLD = 0.9;
const filters = process.argv.slice(2);
const MUTANTS = filters.length ? CATALOG.filter((m) => filters.some((f) => m.name.includes(f))) : CATALOG;

async function main(): Promise<number> {
  const started = performance.now();
  const server = await startServer('sqlite', { SCRIBE_MINI_MODEL: await tinyModelPath() });
  const options = parseOptions(['--base-url', server.baseUrl]);
  const proxy = await startProxy(server.baseUrl, loadSpec(options.openapi, options.asyncapi));
  const suite = (args: string[]) =>
    runSuite(parseOptions(['--base-url', proxy.baseUrl, '--admin-token', ADMIN, '--max-examples', '2', ...args]));
  try {
    const baseline = await suite(['--phases', 'examples,stateful,streaming,sse']);
    if (baseline.recorder.failed) {
      console.log('The run through the proxy without a mutant failed: the proxy is not transparent.');
      for (const f of baseline.recorder.failures.values())
        console.log(`  ${f.check} ${f.operation}: ${f.title} — ${f.message}`);
      return 2;
    }
    console.log(`baseline through the proxy: passed (${baseline.requests} requests)\n`);
    const survivors: string[] = [];
    for (const [index, mutant] of MUTANTS.entries()) {
      proxy.setMutant(mutant);
      const { recorder } = await suite(mutant.args);
      proxy.setMutant(undefined);
      const killedBy = [...new Set([...recorder.failures.values()].map((f) => f.check))];
      const label = `${String(index + 1).padStart(2)}. [${mutant.category}] ${mutant.name}`;
      if (killedBy.length > 0) {
        console.log(`${label}: killed by ${killedBy.join(', ')}`);
      } else {
        const notRun = recorder.notRun.map((n) => `${n.what}: ${n.reason}`);
        console.log(`${label}: SURVIVED${notRun.length ? ` (not run: ${notRun.slice(0, 3).join('; ')})` : ''}`);
        survivors.push(mutant.name);
      }
    }
    const killed = MUTANTS.length - survivors.length;
    const score = killed / MUTANTS.length;
    console.log(
      `\nmutation score: ${killed}/${MUTANTS.length} killed = ${(score * 100).toFixed(1)} % ` +
        `(threshold ${THRESHOLD * 100} %) in ${((performance.now() - started) / 1000).toFixed(0)} s`,
    );
    if (survivors.length > 0) console.log(`survivors: ${survivors.join('; ')}`);
    return score >= THRESHOLD ? 0 : 1;
  } finally {
    await proxy.close();
    await stopServer(server);
  }
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error);
    process.exitCode = 2;
  },
);
