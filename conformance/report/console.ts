// The console report, schemathesis style: one block per failing operation (title, labelled message, the response
// excerpt, "Reproduce with:" a curl command), then the counts per check and per phase, what did not run, and the
// verdict. On a terminal a one-line progress display runs while the suite works; in CI plain lines.
import { curlOf } from '../core/curl.ts';
import type { Recorder, RecordedFailure } from '../core/recorder.ts';
import { ruleCoverage, ruleCoverageLine } from '../core/rule-trace.ts';
import { PHASES } from '../core/types.ts';

const STATUS_TEXT: Record<number, string> = {
  200: 'OK',
  201: 'Created',
  202: 'Accepted',
  400: 'Bad Request',
  401: 'Unauthorized',
  402: 'Payment Required',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  415: 'Unsupported Media Type',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  501: 'Not Implemented',
  503: 'Service Unavailable',
};

const indent = (text: string, by = '    ') =>
  text
    .split('\n')
    .map((line) => by + line)
    .join('\n');

function heading(text: string): string {
  const width = Math.max(80, text.length + 4);
  const side = Math.floor((width - text.length - 2) / 2);
  return `${'_'.repeat(side)} ${text} ${'_'.repeat(width - text.length - 2 - side)}`;
}

export function failureBlock(failure: RecordedFailure, index: number): string {
  const lines = [
    `${index}. ${failure.title}  [${failure.check} · ${failure.severity} · ${failure.phase ?? '-'}${failure.occurrences > 1 ? ` · ×${failure.occurrences}` : ''}]`,
    '',
    indent(failure.message),
  ];
  const exchange = failure.exchange;
  if (exchange) {
    const { status, text } = exchange.response;
    lines.push(
      '',
      `    [${status}] ${STATUS_TEXT[status] ?? ''}:`,
      '',
      indent(`\`${text.length > 500 ? `${text.slice(0, 500)}…` : text}\``, '        '),
      '',
      'Reproduce with:',
      '',
      indent(curlOf(exchange.request)),
    );
    if (exchange.request.headers['X-Signature'])
      lines.push('', '    (signed request: it replays while its X-Timestamp is inside the server window)');
  } else if (failure.evidence) {
    lines.push('', '    Evidence:', '', indent(failure.evidence, '        '));
  }
  return lines.join('\n');
}

export function renderReport(recorder: Recorder, elapsedMs: number, requests: number): string {
  const out: string[] = [];
  const byOperation = new Map<string, RecordedFailure[]>();
  for (const failure of recorder.failures.values()) {
    const list = byOperation.get(failure.operation) ?? [];
    list.push(failure);
    byOperation.set(failure.operation, list);
  }
  if (byOperation.size > 0) out.push('', 'FAILURES', '');
  for (const [operation, failures] of byOperation) {
    const exchange = failures.find((f) => f.exchange)?.exchange;
    const label = exchange
      ? `${exchange.request.method} ${new URL(exchange.request.url).pathname} (${operation})`
      : operation;
    out.push(heading(label), '');
    failures.forEach((failure, i) => out.push(failureBlock(failure, i + 1), ''));
  }
  out.push('', 'CHECKS', '');
  const rows = [...recorder.checks.entries()].sort(([a], [b]) => a.localeCompare(b));
  const width = Math.max(30, ...rows.map(([name]) => name.length + 2));
  out.push(`    ${'check'.padEnd(width)}${'runs'.padStart(7)}${'failed'.padStart(8)}`);
  for (const [name, counter] of rows)
    out.push(`    ${name.padEnd(width)}${String(counter.runs).padStart(7)}${String(counter.failed).padStart(8)}`);
  out.push(
    '',
    'PHASES',
    '',
    `    ${'phase'.padEnd(12)}${'cases'.padStart(7)}${'failures'.padStart(10)}${'not run'.padStart(9)}${'seconds'.padStart(9)}`,
  );
  for (const phase of PHASES) {
    const counts = recorder.phases.get(phase);
    if (!counts) continue;
    out.push(
      `    ${phase.padEnd(12)}${String(counts.cases).padStart(7)}${String(counts.failed).padStart(10)}${String(counts.notRun).padStart(9)}${counts.seconds.toFixed(1).padStart(9)}`,
    );
  }
  if (recorder.rules) {
    // the ledger's promise held against this run: which rules a case provoked, and why the others were not
    out.push('', 'RULES', '', `    ${ruleCoverageLine(ruleCoverage(recorder.rules))}`);
    for (const r of recorder.rules.filter((rule) => rule.verdict !== 'passed'))
      out.push(
        `    - ${r.id} ${r.verdict === 'failed' ? 'FAILED' : 'not run'}: ${r.reason ?? `[${r.checks.join(', ')}]`}`,
      );
  }
  if (recorder.notRun.length > 0) {
    out.push('', 'NOT RUN (never counted as passed)', '');
    // one line per item and reason, with the phases it was not run in
    const grouped = new Map<string, string[]>();
    for (const item of recorder.notRun) {
      const key = `${item.what}: ${item.reason.replace(/^501 .*/, '501 (not implemented)')}`;
      grouped.set(key, [...(grouped.get(key) ?? []), ...(item.phase ? [item.phase] : [])]);
    }
    for (const [line, phases] of grouped) out.push(`    - ${line}${phases.length ? ` [${phases.join(', ')}]` : ''}`);
  }
  const cases = [...recorder.phases.values()].reduce((sum, c) => sum + c.cases, 0);
  const seconds = elapsedMs / 1000;
  out.push(
    '',
    `${cases} cases, ${requests} requests in ${seconds.toFixed(1)} s (${(cases / Math.max(seconds, 0.001)).toFixed(1)} cases/s); ` +
      `${recorder.failures.size} unique failures; ${recorder.notRun.length} not run`,
    recorder.failed ? 'RESULT: FAILED' : 'RESULT: PASSED (nothing failed; see NOT RUN for what was not exercised)',
  );
  return out.join('\n');
}
