// JUnit XML: one <testsuite> per check, one <testcase> per operation it ran on (failures inside), every not-run
// item as a skipped test case, so CI dashboards never show it as passed, and a `rules` suite: one case per ledger
// rule with checks — failed when its checks failed in its scope, skipped (with the reason) when no case provoked it.
import type { Recorder } from '../core/recorder.ts';
import { curlOf } from '../core/curl.ts';

/** Control characters other than tab and line ends are not allowed in XML 1.0. */
const allowedInXml = (c: string) => c >= ' ' || c === '\t' || c === '\n' || c === '\r';

const xml = (text: string) =>
  [...text]
    .filter(allowedInXml)
    .join('')
    .replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!);

export function renderJunit(recorder: Recorder, elapsedMs: number): string {
  const suites = new Map<string, string[]>();
  let tests = 0;
  let failures = 0;
  for (const pair of recorder.pairs.values()) {
    const found = [...recorder.failures.values()].filter(
      (f) => f.check === pair.check && f.operation === pair.operation,
    );
    const body = found
      .map(
        (f) =>
          `      <failure type="${xml(f.severity)}" message="${xml(f.title)}">${xml(
            `${f.message}${f.exchange ? `\nReproduce with: ${curlOf(f.exchange.request)}` : f.evidence ? `\n${f.evidence}` : ''}`,
          )}</failure>`,
      )
      .join('\n');
    tests += 1;
    if (found.length > 0) failures += 1;
    const cases = suites.get(pair.check) ?? [];
    cases.push(
      `    <testcase classname="${xml(pair.check)}" name="${xml(pair.operation)}">${body ? `\n${body}\n    ` : ''}</testcase>`,
    );
    suites.set(pair.check, cases);
  }
  const skipped = recorder.notRun.map(
    (n) =>
      `    <testcase classname="not_run" name="${xml(`${n.what}${n.phase ? ` [${n.phase}]` : ''}`)}"><skipped message="${xml(n.reason)}"/></testcase>`,
  );
  tests += skipped.length;
  const rules = (recorder.rules ?? []).map((r) => {
    const inner =
      r.verdict === 'failed'
        ? `<failure type="rule" message="${xml(`${r.failed} of ${r.cases} cases failed`)}">${xml(`checks: ${r.checks.join(', ')}${r.reason ? `\n${r.reason}` : ''}`)}</failure>`
        : r.verdict === 'not_run'
          ? `<skipped message="${xml(r.reason ?? 'not provoked')}"/>`
          : '';
    return `    <testcase classname="rules" name="${xml(r.id)}">${inner}</testcase>`;
  });
  const ruleFailures = rules.filter((c) => c.includes('<failure')).length;
  const ruleSkips = rules.filter((c) => c.includes('<skipped')).length;
  tests += rules.length;
  failures += ruleFailures;
  const blocks = [...suites.entries()].map(
    ([check, cases]) =>
      `  <testsuite name="${xml(check)}" tests="${cases.length}" failures="${cases.filter((c) => c.includes('<failure')).length}">\n${cases.join('\n')}\n  </testsuite>`,
  );
  if (skipped.length > 0)
    blocks.push(
      `  <testsuite name="not_run" tests="${skipped.length}" skipped="${skipped.length}">\n${skipped.join('\n')}\n  </testsuite>`,
    );
  if (rules.length > 0)
    blocks.push(
      `  <testsuite name="rules" tests="${rules.length}" failures="${ruleFailures}" skipped="${ruleSkips}">\n${rules.join('\n')}\n  </testsuite>`,
    );
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="scribe-conformance" tests="${tests}" failures="${failures}" skipped="${skipped.length + ruleSkips}" time="${(elapsedMs / 1000).toFixed(3)}">\n${blocks.join('\n')}\n</testsuites>\n`;
}
