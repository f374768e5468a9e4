// NDJSON: one JSON object per line — every failure (with its curl), every not-run item, the counts of every check
// and phase, and a last summary line.
import { curlOf } from '../core/curl.ts';
import type { Recorder } from '../core/recorder.ts';

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
    });
  for (const n of recorder.notRun) lines.push({ type: 'not_run', ...n });
  for (const [check, counter] of recorder.checks) lines.push({ type: 'check', check, ...counter });
  for (const [phase, counts] of recorder.phases) lines.push({ type: 'phase', phase, ...counts });
  const cases = [...recorder.phases.values()].reduce((sum, c) => sum + c.cases, 0);
  lines.push({
    type: 'summary',
    passed: !recorder.failed,
    cases,
    requests,
    failures: recorder.failures.size,
    not_run: recorder.notRun.length,
    seconds: Number((elapsedMs / 1000).toFixed(3)),
  });
  return lines.map((line) => JSON.stringify(line)).join('\n') + '\n';
}
