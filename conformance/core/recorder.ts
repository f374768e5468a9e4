// What the run found: failures deduplicated by (check, operation, title, message) with the first exchange kept for
// "Reproduce with:", how often each check ran and failed, per-phase counts, and everything that could not run.
import { mediaTypeOf } from './declared.ts';
import { judges, requestMediaOf, type Observation, type RuleResult } from './rule-trace.ts';
import type { Exchange, Expectation, Failure, Finding, NotRun, Phase } from './types.ts';

export interface RecordedFailure extends Failure {
  occurrences: number;
  evidence?: string;
}

export interface Counter {
  runs: number;
  failed: number;
}

export class Recorder {
  readonly failures = new Map<string, RecordedFailure>();
  readonly checks = new Map<string, Counter>();
  /** Runs per (check, operation), for the JUnit report. */
  readonly pairs = new Map<string, Counter & { check: string; operation: string }>();
  readonly phases = new Map<Phase, { cases: number; failed: number; notRun: number; seconds: number }>();
  readonly notRun: NotRun[] = [];
  /** Operations that answered 501 not_implemented: their remaining cases are not sent. */
  readonly unimplemented = new Map<string, string>();
  /** What each check judged, by check, operation, request media type and answer (the rule trace's input). */
  readonly observations = new Map<string, Observation>();
  /** Each ledger rule with checks and its verdict in this run (set when the run ends). */
  rules?: RuleResult[];
  listener?: (event: { kind: 'case' | 'failure' | 'not-run'; phase?: Phase; text: string }) => void;

  phase(phase: Phase) {
    let counts = this.phases.get(phase);
    if (!counts) {
      counts = { cases: 0, failed: 0, notRun: 0, seconds: 0 };
      this.phases.set(phase, counts);
    }
    return counts;
  }

  countCase(phase: Phase, text = ''): void {
    this.phase(phase).cases += 1;
    this.listener?.({ kind: 'case', phase, text });
  }

  /** One run of a check, with what it found (nothing = passed). */
  checked(
    check: string,
    findings: Finding[],
    context: {
      phase: Phase;
      operation?: string;
      exchange?: Exchange;
      expectation?: Expectation;
      judged?: Exchange[];
      case?: string;
    },
  ) {
    this.observe(check, findings, context);
    // a scenario's check judged every exchange its trace holds: each counts in its own operation's scope
    for (const exchange of context.judged ?? [])
      this.observe(check, findings, {
        phase: context.phase,
        operation: exchange.operationId,
        exchange,
        case: context.case,
      });
    const counter = this.checks.get(check) ?? { runs: 0, failed: 0 };
    counter.runs += 1;
    if (findings.length > 0) counter.failed += 1;
    this.checks.set(check, counter);
    const name = context.operation ?? findings[0]?.operation ?? '(scenario)';
    const pair = this.pairs.get(`${check}\u0000${name}`) ?? { check, operation: name, runs: 0, failed: 0 };
    pair.runs += 1;
    if (findings.length > 0) pair.failed += 1;
    this.pairs.set(`${check}\u0000${name}`, pair);
    for (const finding of findings) {
      const operation = finding.operation ?? context.operation ?? '(no operation)';
      const key = [check, operation, finding.title, finding.message].join('\u0000');
      const known = this.failures.get(key);
      if (known) {
        known.occurrences += 1;
        continue;
      }
      this.phase(context.phase).failed += 1;
      const recorded: RecordedFailure = {
        check,
        operation,
        title: finding.title,
        message: finding.message,
        severity: finding.severity,
        phase: context.phase,
        exchange: finding.exchange ?? context.exchange,
        evidence: finding.evidence,
        occurrences: 1,
      };
      this.failures.set(key, recorded);
      this.listener?.({ kind: 'failure', phase: context.phase, text: `${check} ${operation}: ${finding.title}` });
    }
  }

  private observe(
    check: string,
    findings: Finding[],
    context: { phase: Phase; operation?: string; exchange?: Exchange; expectation?: Expectation; case?: string },
  ): void {
    if (!judges(check, context.expectation, context.exchange)) return;
    const { exchange } = context;
    const observation: Observation = {
      check,
      phase: context.phase,
      case: context.case,
      operation: context.operation,
      requestMedia: requestMediaOf(exchange),
      status: exchange?.response.status,
      responseMedia: exchange ? mediaTypeOf(exchange.response.headers['content-type']) || undefined : undefined,
      runs: 0,
      failed: 0,
    };
    const key = JSON.stringify([
      check,
      context.phase,
      context.case,
      observation.operation,
      observation.requestMedia,
      observation.status,
      observation.responseMedia,
    ]);
    const known = this.observations.get(key) ?? observation;
    known.runs += 1;
    if (findings.length > 0) known.failed += 1;
    this.observations.set(key, known);
  }

  skipped(item: NotRun): void {
    const key = `${item.what}|${item.operation ?? ''}|${item.phase ?? ''}|${item.reason}`;
    if (this.notRun.some((n) => `${n.what}|${n.operation ?? ''}|${n.phase ?? ''}|${n.reason}` === key)) return;
    this.notRun.push(item);
    if (item.phase) this.phase(item.phase).notRun += 1;
    this.listener?.({ kind: 'not-run', phase: item.phase, text: `${item.what}: ${item.reason}` });
  }

  get failed(): boolean {
    return this.failures.size > 0;
  }
}
