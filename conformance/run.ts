// The suite as a function: loads the documents, sets up credentials (provisioning a throwaway account through the
// admin surface when given a token), runs the selected phases in order and returns what was found, with the verdict
// of every ledger rule its checks judged (or why not). The CLI and the tests both call this.
import { readFileSync, writeFileSync } from 'node:fs';
import './checks/index.ts';
import { runCoverage } from './cases/coverage.ts';
import { runExamples } from './cases/examples.ts';
import { runFuzzing } from './cases/fuzzing.ts';
import { runNegative } from './cases/negative.ts';
import { runSse } from './cases/sse.ts';
import { runStateful } from './cases/stateful.ts';
import { runStreaming } from './cases/streaming.ts';
import { loadAudio } from './core/audio.ts';
import { Client, type Credentials } from './core/client.ts';
import type { RunOptions } from './core/options.ts';
import { RateLimiter } from './core/rate-limiter.ts';
import { Recorder } from './core/recorder.ts';
import { registeredChecks } from './core/registry.ts';
import { operationIndex, traceRules } from './core/rule-trace.ts';
import { casesNotRun } from './cases/named.ts';
import { loadLedger } from './core/rules.ts';
import { RunContext, type Accounts } from './core/run-context.ts';
import { loadSpec } from './core/spec.ts';
import type { Phase } from './core/types.ts';
import { renderJunit } from './report/junit.ts';
import { renderNdjson } from './report/ndjson.ts';

export interface RunResult {
  recorder: Recorder;
  elapsedMs: number;
  requests: number;
}

const STATEFUL_PHASES: Phase[] = ['stateful', 'streaming', 'sse'];
const GENERATING_PHASES: Phase[] = ['examples', 'coverage', 'fuzzing', 'negative'];

/** A throwaway account with a v3 key and a v2 key pair, created through POST /admin/accounts. */
async function provisionAccount(client: Client, balance: number, label: string): Promise<Credentials & { id: string }> {
  const exchange = await client.send(
    { method: 'POST', path: '/admin/accounts', headers: {}, body: { kind: 'json', value: { balance, name: label } } },
    { phase: 'stateful', label: 'provision', security: 'admin' },
  );
  const body = exchange.response.body as
    { account?: { id: string }; api_key?: string; public_key?: string; secret?: string } | undefined;
  if (exchange.response.status !== 201 || !body?.account?.id)
    throw new Error(
      `provisioning an account failed: ${exchange.response.status} ${exchange.response.text.slice(0, 200)}`,
    );
  return { id: body.account.id, account: label, apiKey: body.api_key, publicKey: body.public_key, secret: body.secret };
}

export async function runSuite(options: RunOptions, recorder = new Recorder()): Promise<RunResult> {
  const started = performance.now();
  const spec = loadSpec(options.openapi, options.asyncapi);
  const limiter = new RateLimiter(options.rateLimit, spec.requestsPerSecond);
  let main: Credentials & { id?: string } = {
    account: 'main',
    apiKey: options.apiKey,
    publicKey: options.publicKey,
    secret: options.secret,
  };
  const bootstrap = new Client(options.baseUrl, limiter, main, options.adminToken);
  let provision: Accounts['provision'];
  if (options.adminToken && options.profile === 'full') {
    let count = 0;
    provision = (balance, label) => provisionAccount(bootstrap, balance, `${label}-${++count}`);
    if (!options.apiKey && !options.publicKey)
      main = { ...(await provision(1000, 'conformance-main')), account: 'main' };
  }
  const client = new Client(options.baseUrl, limiter, main, options.adminToken);
  const run = new RunContext(spec, client, recorder, options, loadAudio(), { main, provision });
  const phases: Record<Phase, (run: RunContext) => Promise<void>> = {
    examples: runExamples,
    coverage: runCoverage,
    fuzzing: runFuzzing,
    negative: runNegative,
    stateful: runStateful,
    streaming: runStreaming,
    sse: runSse,
  };
  const timed = async (phase: Phase) => {
    const phaseStarted = performance.now();
    await phases[phase](run);
    recorder.phase(phase).seconds = (performance.now() - phaseStarted) / 1000;
  };
  const selected = options.phases.filter((phase) => {
    if (options.profile !== 'stateless' || !STATEFUL_PHASES.includes(phase)) return true;
    recorder.skipped({ what: `phase ${phase}`, phase, reason: '--profile stateless' });
    return false;
  });
  // With throwaway accounts the generating phases run side by side, each on its own account (so each has the whole
  // per-account rate limit); the stateful phases follow, in order.
  const generating = selected.filter((phase) => GENERATING_PHASES.includes(phase));
  if (provision && !options.apiKey && generating.length > 1) {
    for (const phase of generating)
      run.phaseCredentials.set(phase, { ...(await provision(1000, phase)), account: phase });
    await Promise.all(generating.map(timed));
  } else {
    for (const phase of generating) await timed(phase);
  }
  for (const phase of selected.filter((p) => !GENERATING_PHASES.includes(p))) await timed(phase);
  recorder.rules = traceRules(loadLedger().rules, [...recorder.observations.values()], {
    selectedChecks: new Set(
      registeredChecks()
        .map((c) => c.name)
        .filter((name) => run.checkEnabled(name)),
    ),
    operations: operationIndex(JSON.parse(readFileSync(options.openapi, 'utf8')) as Record<string, unknown>),
    selectedOperations: new Set(run.operations().map((o) => o.id)),
    notRunByOperation: new Map(recorder.notRun.map((n) => [n.operation ?? n.what, n.reason])),
    notRunByPhase: new Map(recorder.notRun.flatMap((n) => (n.phase ? [[n.phase, `${n.what}: ${n.reason}`]] : []))),
    // the named cases the options leave out, and those a scenario could not run on this server (with its reason)
    casesNotRun: new Map([
      ...casesNotRun(options),
      ...recorder.notRun.flatMap((n) => (n.case ? [[n.case, `${n.what}: ${n.reason}`] as [string, string]] : [])),
    ]),
  });
  const elapsedMs = performance.now() - started;
  const requests = client.requests + bootstrap.requests;
  if (options.junit) writeFileSync(options.junit, renderJunit(recorder, elapsedMs));
  if (options.ndjson) writeFileSync(options.ndjson, renderNdjson(recorder, elapsedMs, requests));
  return { recorder, elapsedMs, requests };
}
