// `scribe-conformance --base-url URL …`: runs the suite against a server and prints the verdict. Exit 0 only when
// nothing failed (what could not run is listed, never counted as passed); 1 on failures; 2 on bad usage.
// `scribe-conformance --rules`: prints the rule ledger with its coverage; exit 0 when the ledger holds, 1 otherwise.
// `scribe-conformance --rules --from-report PATH`: prints a run's rule coverage from its NDJSON report.
import { readFileSync } from 'node:fs';
import { parseOptions, parseRulesOptions, USAGE, UsageError, wantsHelp, type RulesOptions } from './core/options.ts';
import { Recorder } from './core/recorder.ts';
import { registeredChecks } from './core/registry.ts';
import { auditRules, readSources } from './core/rules-audit.ts';
import { loadLedger, loadMutantResults, provenRules } from './core/rules.ts';
import { renderReport } from './report/console.ts';
import type { RuleResult } from './core/rule-trace.ts';
import { renderRules, renderRulesNdjson, renderRunRules, renderRunRulesNdjson } from './report/rules.ts';
import { runSuite } from './run.ts';

/** A run's rule coverage, read back from the `rule_result` lines of its NDJSON report. */
function printRunRules(path: string, json: boolean): number {
  let results: RuleResult[];
  try {
    results = readFileSync(path, 'utf8')
      .split('\n')
      .filter((line) => line.trim())
      .map((line) => JSON.parse(line) as { type?: string } & RuleResult)
      .filter((line) => line.type === 'rule_result');
  } catch (error) {
    throw new UsageError(`--from-report ${path}: ${(error as Error).message}`);
  }
  if (results.length === 0)
    throw new UsageError(`--from-report ${path}: no rule_result lines (not a run's NDJSON report)`);
  console.log(json ? renderRunRulesNdjson(results).trimEnd() : renderRunRules(results));
  return results.some((r) => r.verdict === 'failed') ? 1 : 0;
}

function printRules(options: RulesOptions): number {
  if (options.fromReport) return printRunRules(options.fromReport, options.json);
  const { rules, problems } = loadLedger();
  const documents = {
    openapi: JSON.parse(readFileSync(options.openapi, 'utf8')) as unknown,
    asyncapi: JSON.parse(readFileSync(options.asyncapi, 'utf8')) as unknown,
  };
  const checks = new Set(registeredChecks().map((check) => check.name));
  problems.push(...auditRules(rules, { documents, checks, sources: readSources() }));
  const proven = provenRules(rules, loadMutantResults());
  console.log(
    options.json ? renderRulesNdjson(rules, problems, proven).trimEnd() : renderRules(rules, problems, proven),
  );
  return problems.length ? 1 : 0;
}

async function main(): Promise<number> {
  let options;
  // Asked-for help is an answer, not bad usage: the text goes to stdout and the exit code is 0.
  if (wantsHelp(process.argv.slice(2))) {
    console.log(USAGE);
    return 0;
  }
  try {
    const rulesOptions = parseRulesOptions(process.argv.slice(2));
    if (rulesOptions) return printRules(rulesOptions);
    options = parseOptions(process.argv.slice(2));
  } catch (error) {
    if (error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      console.error((error as Error).message);
      return 2;
    }
    throw error;
  }
  const recorder = new Recorder();
  let cases = 0;
  let failures = 0;
  recorder.listener = (event) => {
    if (event.kind === 'case') cases += 1;
    if (event.kind === 'failure') failures += 1;
    if (options.progress) {
      process.stdout.write(`\r\u001b[2K${event.phase ?? ''}: ${cases} cases, ${failures} failures`);
    } else if (event.kind === 'case' && options.verbose) {
      console.log(`[${event.phase ?? '-'}] ${event.text}`);
    } else if (event.kind !== 'case') {
      console.log(`${event.kind === 'failure' ? 'FAIL' : 'NOT RUN'} [${event.phase ?? '-'}] ${event.text}`);
    }
  };
  console.log(`scribe-conformance: ${options.baseUrl} (phases ${options.phases.join(', ')}; seed ${options.seed})`);
  const { elapsedMs, requests } = await runSuite(options, recorder);
  if (options.progress) process.stdout.write('\r\u001b[2K');
  console.log(renderReport(recorder, elapsedMs, requests));
  return recorder.failed ? 1 : 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(`scribe-conformance: ${(error as Error).stack ?? String(error)}`);
    process.exitCode = 2;
  },
);
