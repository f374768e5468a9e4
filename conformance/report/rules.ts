// `scribe-conformance --rules`: the rule ledger with each rule's coverage, as text for people or as NDJSON (one line
// per rule, then a summary line) for tools; with `--from-report`, a run's verdict per rule instead.
import { ruleCoverage, ruleCoverageLine, type RuleResult } from '../core/rule-trace.ts';
import { COVERAGES, coverageOf, summarize, type Coverage, type Rule } from '../core/rules.ts';

const LABEL: Record<Coverage, string> = {
  checked: 'checked',
  judged: 'judged',
  unjudged: 'unjudged',
  not_checkable: 'not checkable',
};

/** The one-line summary, also quoted in conformance/README.md. */
export function rulesSummaryLine(rules: Rule[], proven: ReadonlyMap<string, unknown>): string {
  const summary = summarize(rules, proven);
  const counts = COVERAGES.map((coverage) => `${LABEL[coverage]} ${summary[coverage]}`).join(', ');
  return (
    `${summary.total} rules: ${counts}; rules with a killed mutant / checkable rules: ` +
    `${summary.checked}/${summary.checkable} (${summary.gaps} unjudged ones are named gaps of the suite)`
  );
}

export function renderRules(rules: Rule[], problems: string[], proven: ReadonlyMap<string, string[]>): string {
  const width = Math.max(...rules.map((rule) => rule.id.length), 2);
  const lines = rules.map((rule) => {
    const coverage = coverageOf(rule, proven);
    const killedBy = proven.get(rule.id);
    const how = rule.checks.length
      ? `  [${rule.checks.join(', ')}]${killedBy ? ` killed: ${killedBy.join('; ')}` : ''}`
      : rule.not_checkable
        ? `  (${rule.not_checkable})`
        : rule.gap
          ? `  gap: ${rule.gap}`
          : '';
    const tag = rule.source === 'decision' ? ' (decision)' : '';
    return `${rule.id.padEnd(width)}  ${LABEL[coverage].padEnd(13)}${how}${tag}`.trimEnd();
  });
  lines.push('', rulesSummaryLine(rules, proven));
  if (problems.length) lines.push('', `${problems.length} ledger problems:`, ...problems.map((p) => `  ${p}`));
  return lines.join('\n');
}

export function renderRulesNdjson(rules: Rule[], problems: string[], proven: ReadonlyMap<string, string[]>): string {
  const lines: unknown[] = rules.map((rule) => ({
    type: 'rule',
    id: rule.id,
    section: rule.section,
    source: rule.source,
    coverage: coverageOf(rule, proven),
    killed_by: proven.get(rule.id) ?? [],
    encoded: rule.encoded,
    checks: rule.checks,
    not_checkable: rule.not_checkable,
    gap: rule.gap,
  }));
  for (const problem of problems) lines.push({ type: 'problem', message: problem });
  lines.push({ type: 'summary', ...summarize(rules, proven), problems: problems.length });
  return lines.map((line) => JSON.stringify(line)).join('\n') + '\n';
}

/** A run's verdict per rule: passed, failed (its checks failed in its scope) or not run (and why). */
export function renderRunRules(results: RuleResult[]): string {
  const width = Math.max(...results.map((r) => r.id.length), 2);
  const lines = results.map((r) => {
    const verdict = r.verdict === 'not_run' ? 'not run' : r.verdict;
    const detail =
      r.verdict === 'not_run'
        ? `  (${r.reason ?? 'not provoked'})`
        : `  ${r.cases} cases [${r.checks.join(', ')}] by ${(r.phases ?? []).join(', ') || '-'}`;
    return `${r.id.padEnd(width)}  ${verdict.padEnd(8)}${detail}`;
  });
  lines.push('', ruleCoverageLine(ruleCoverage(results)));
  return lines.join('\n');
}

export function renderRunRulesNdjson(results: RuleResult[]): string {
  const lines: unknown[] = results.map((r) => ({ type: 'rule_result', ...r }));
  lines.push({ type: 'summary', ...ruleCoverage(results) });
  return lines.map((line) => JSON.stringify(line)).join('\n') + '\n';
}
