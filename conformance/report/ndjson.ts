// NDJSON: one JSON object per line — every failure (with its curl and the ledger rules it breaks), every not-run
// item, the counts of every check and phase, every ledger rule's verdict in the run (`rule_result`), and a last
// summary line with the run's rule coverage. `scribe-conformance --rules --from-report` reads the rule lines back.
import { curlOf } from '../core/curl.ts';
import type { Recorder } from '../core/recorder.ts';
import { ruleCoverage, rulesBrokenBy } from '../core/rule-trace.ts';

export function renderNdjson(recorder: Recorder, elapsedMs: number, requests: number): string {
  const lines: unknown[] = [];
  for (const f of recorder.failures.values())
    lines.push({
      type: 'failure',
      check: f.check,
      operation: f.operation,
      phase: f.phase,
      title: f.title,
      message: f.message,
      severity: f.severity,
      occurrences: f.occurrences,
      status: f.exchange?.response.status,
      curl: f.exchange ? curlOf(f.exchange.request) : undefined,
      evidence: f.evidence,
      rules: rulesBrokenBy(recorder.rules, f.check, f.operation),
    });
  for (const n of recorder.notRun) lines.push({ type: 'not_run', ...n });
  for (const [check, counter] of recorder.checks) lines.push({ type: 'check', check, ...counter });
  for (const [phase, counts] of recorder.phases) lines.push({ type: 'phase', phase, ...counts });
  for (const r of recorder.rules ?? [])
    lines.push({
      type: 'rule_result',
      id: r.id,
      verdict: r.verdict,
      checks: r.checks,
      cases: r.cases,
      failed: r.failed,
      phases: r.phases,
      reason: r.reason,
    });
  const cases = [...recorder.phases.values()].reduce((sum, c) => sum + c.cases, 0);
  lines.push({
    type: 'summary',
    passed: !recorder.failed,
    cases,
    requests,
    failures: recorder.failures.size,
    not_run: recorder.notRun.length,
    seconds: Number((elapsedMs / 1000).toFixed(3)),
    rules: recorder.rules ? ruleCoverage(recorder.rules) : undefined,
  });
  return lines.map((line) => JSON.stringify(line)).join('\n') + '\n';
}
