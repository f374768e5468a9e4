// The suite against the reference server, started here as a real process (`node --import tsx server/src/main.ts`)
// on SQLite and on a fresh PostgreSQL database, both at once, with the tests' tiny chat model (a real GGUF with
// random weights, written here) as service-mini so the chat rules are provoked too; SQLite with --slow, PostgreSQL
// with the defaults: zero failures on each, every check and phase run, every ledger rule with checks provoked by a
// case with --slow, and in the default run only the rules whose named cases need --slow not run, with that reason;
// the reports written. The counts per check are printed.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { DatabaseKind } from '../../server/src/test-support/test-databases.ts';
import { parseOptions } from '../core/options.ts';
import { registeredChecks } from '../core/registry.ts';
import { loadLedger } from '../core/rules.ts';
import { NAMED_CASES } from '../cases/named.ts';
import { PHASES } from '../core/types.ts';
import { renderReport } from '../report/console.ts';
import { runSuite, type RunResult } from '../run.ts';
import { tinyModelPath } from '../../server/src/chat/tiny-model-fixture.ts';
import { ADMIN, startServer, stopServer, type Server } from './reference-server.ts';

/**
 * What the reference server does not implement yet answers 501, and chat answers 503 engine_unavailable where no
 * chat model is installed: those checks are not run (listed, never passed). Nothing else may be missing.
 */
const MAY_BE_NOT_RUN = new Set(['stream_protocol_conformance', 'sse_conformance']);
const allowedNotRun = (reason: string) =>
  /^501\b|answered 501|answered 503 (engine_unavailable|ENGINE_UNAVAILABLE)|would be 503 engine_unavailable/.test(
    reason,
  );

/** The run with every opt-in on, and the default run (the one an implementer starts first). */
const SLOW_ON: DatabaseKind = 'sqlite';
/**
 * A run's time limit, to catch a suite that slows down: the default run (PostgreSQL) took 141.7 s on a quiet 2-core
 * machine and 184.8 s in CI, where another test file shares the cores, once the signature, rate-limit and documented-
 * models probes were added, so it gets 225 s; --slow waits out a 62 s ticket and a 45 s idle session on top of the
 * default phases (111.7 s alone on 2 cores, more beside the PostgreSQL run), so it gets 4 minutes.
 */
const LIMIT_MS = (kind: DatabaseKind) => (kind === SLOW_ON ? 240_000 : 225_000);
/**
 * The servers have the tiny model as `service-mini` only: `service-pro` answers 503 engine_unavailable (the only 503
 * a reference server gives on purpose), so the rules of the `service-pro-chat` case are not run, with that reason.
 * (The mutant runner gives the tiny model as `service-pro` too, and kills that case's mutant; a server without it
 * is also what keeps the three 503 engine_unavailable rules provoked here.)
 */
const proRules = new Set(
  loadLedger()
    .rules.filter((rule) => rule.cases?.includes('service-pro-chat'))
    .map((rule) => rule.id),
);
/** Rules whose every named case needs an option the default run leaves off. */
const optInRules = new Set(
  loadLedger()
    .rules.filter((rule) => rule.cases?.length && rule.cases.every((name) => NAMED_CASES[name]?.needs))
    .map((rule) => rule.id),
);

const test = suite('conformance suite vs the reference server');
const servers: Server[] = [];
const results = new Map<DatabaseKind, RunResult>();
const reports = mkdtempSync(join(tmpdir(), 'scribe-conformance-reports-'));

test.before(async () => {
  const chat = { SCRIBE_MINI_MODEL: await tinyModelPath() };
  servers.push(...(await Promise.all([startServer('sqlite', chat), startServer('postgres', chat)])));
});

test.after(async () => {
  await Promise.all(servers.map(stopServer));
  rmSync(reports, { recursive: true, force: true });
});

test('--slow on SQLite and the default run on PostgreSQL at once, within their time limits (240 and 225 s)', async () => {
  await Promise.all(
    servers.map(async (server) => {
      const options = parseOptions([
        '--base-url',
        server.baseUrl,
        '--admin-token',
        ADMIN,
        '--report',
        `junit=${join(reports, `${server.kind}.xml`)},ndjson=${join(reports, `${server.kind}.ndjson`)}`,
        '--no-progress',
        ...(server.kind === SLOW_ON ? ['--slow'] : []),
      ]);
      results.set(server.kind, await runSuite(options));
    }),
  );
  for (const [kind, result] of results) {
    console.log(`\n--- ${kind}\n${renderReport(result.recorder, result.elapsedMs, result.requests)}`);
    assert.ok(result.elapsedMs < LIMIT_MS(kind), `${kind}: ${Math.round(result.elapsedMs / 1000)} s`);
  }
});

for (const kind of ['sqlite', 'postgres'] as const) {
  test(`${kind}: zero failures`, () => {
    const { recorder } = results.get(kind)!;
    const failures = [...recorder.failures.values()].map((f) => `${f.check} ${f.operation}: ${f.title} — ${f.message}`);
    assert.equal(failures, []);
  });

  test(`${kind}: every check ran, or is not run only because the server answers 501 for it`, () => {
    const { recorder } = results.get(kind)!;
    for (const check of registeredChecks()) {
      const runs = recorder.checks.get(check.name)?.runs ?? 0;
      if (runs > 0) continue;
      assert.ok(MAY_BE_NOT_RUN.has(check.name), `${check.name} never ran`);
      assert.ok(
        recorder.notRun.some((n) => allowedNotRun(n.reason)),
        `${check.name} did not run and nothing answered 501 or 503 engine_unavailable`,
      );
    }
    for (const phase of PHASES.filter((p) => p !== 'streaming' && p !== 'sse'))
      assert.ok((recorder.phases.get(phase)?.cases ?? 0) > 0, `phase ${phase} sent no case`);
    // nothing is missing for another reason on the reference server
    const other = recorder.notRun.filter((n) => !allowedNotRun(n.reason));
    assert.equal(other, []);
  });

  // The ledger cannot claim what no case does: a rule that names checks must have been provoked in this run — a
  // case in each scope its pointers claim (its operation, request media type, answer) judged by one of its checks,
  // and, for a rule that names cases, one of those cases. With the tiny chat model the chat rules are no exception;
  // without --slow, the rules only opt-in cases provoke are not run, each with the option it needs as its reason.
  test(`${kind}: every rule the ledger lists as checked was provoked by a case, and passed`, () => {
    const { recorder } = results.get(kind)!;
    assert.ok(recorder.rules && recorder.rules.length > 250, `${recorder.rules?.length} rules traced`);
    const failed = recorder.rules.filter((r) => r.verdict === 'failed').map((r) => `${r.id}: ${r.reason ?? ''}`);
    assert.equal(failed, []);
    const notRun = recorder.rules.filter((r) => r.verdict === 'not_run');
    assert.ok(proRules.size > 0, 'no rule names the service-pro-chat case');
    if (kind === SLOW_ON) {
      assert.equal(
        notRun.filter((r) => !proRules.has(r.id)).map((r) => `${r.id} [${r.checks.join(', ')}]: ${r.reason}`),
        [],
      );
    } else {
      assert.ok(optInRules.size > 0, 'no rule needs an opt-in case');
      assert.equal(notRun.map((r) => r.id).sort(), [...optInRules, ...proRules].sort());
    }
    assert.equal(
      notRun.filter((r) => proRules.has(r.id)).length,
      proRules.size,
      'without service-pro installed, its rules are not run',
    );
    for (const rule of notRun)
      assert.match(
        rule.reason ?? '',
        proRules.has(rule.id) ? /service-pro-chat did not run: .*service-pro/ : /did not run: needs --slow$/,
        rule.id,
      );
  });

  test(`${kind}: the JUnit and NDJSON reports`, () => {
    const xml = readFileSync(join(reports, `${kind}.xml`), 'utf8');
    assert.match(xml, /^<\?xml version="1.0"/);
    assert.match(xml, /<testsuite name="response_schema_conformance"/);
    assert.ok(!xml.includes('<failure'), 'no failure in the JUnit report');
    assert.match(xml, /<testsuite name="rules" tests="\d{3}" failures="0"/);
    const lines = readFileSync(join(reports, `${kind}.ndjson`), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const summary = lines.at(-1);
    assert.is(summary.type, 'summary');
    assert.is(summary.passed, true);
    assert.ok(summary.cases > 500, `${summary.cases} cases`);
    const { rules } = results.get(kind)!.recorder;
    assert.equal(summary.rules, {
      rules: rules!.length,
      passed: rules!.filter((r) => r.verdict === 'passed').length,
      failed: 0,
      not_run: rules!.filter((r) => r.verdict === 'not_run').length,
    });
    assert.is(lines.filter((l) => l.type === 'rule_result').length, rules!.length);
  });
}

test.run();
