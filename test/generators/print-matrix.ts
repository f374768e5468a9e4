// The matrix as the test prints it: one row per call, one column per generator (works as generated, with the
// generator's documented option, or fails), then per generator its timings, strict errors and why each call failed.
import { CALLS } from './expected.ts';
import type { GeneratorRun } from './run-generator.ts';

const CELL = { works: 'works', option: 'option', fails: 'FAILS', absent: '-' } as const;

export function printMatrix(runs: GeneratorRun[], seconds: number): string {
  const width = Math.max(...CALLS.map((call) => call.length));
  const columns = runs.map((run) => Math.max(run.generator.id.length, 6));
  const row = (first: string, cells: string[]) =>
    `${first.padEnd(width)}  ${cells.map((cell, i) => cell.padEnd(columns[i]!)).join('  ')}`.trimEnd();
  const lines = [
    `Generator matrix (${seconds.toFixed(0)} s): works = as generated, option = with the documented option, FAILS, - = no such operation in the contract`,
    row(
      '',
      runs.map((run) => run.generator.id),
    ),
    ...CALLS.map((call) =>
      row(
        call,
        runs.map((run) => CELL[run.statuses[call]]),
      ),
    ),
    row(
      'as generated',
      runs.map((run) => {
        const tried = CALLS.filter((call) => run.statuses[call] !== 'absent');
        return `${tried.filter((call) => run.statuses[call] === 'works').length}/${tried.length}`;
      }),
    ),
    '',
  ];
  for (const run of runs) {
    lines.push(
      `${run.generator.id}: ${run.generator.label}; option: ${run.generator.option}; generate ${run.generated.seconds.toFixed(1)} s ` +
        `(exit ${run.generated.code}), tsc --strict ${run.compile.seconds.toFixed(1)} s: ` +
        `${run.compile.generated.length} errors in the generated code, ` +
        `${run.compile.setup.length + [...run.compile.byAttempt.values()].flat().length} in the scenario; ` +
        `scenario ${run.ran.seconds.toFixed(1)} s`,
    );
    for (const error of run.compile.generated.slice(0, 5)) lines.push(`    generated code: ${error}`);
    for (const error of run.compile.setup) lines.push(`    scenario setup: ${error}`);
    for (const call of CALLS) if (run.details[call]) lines.push(`    ${call}: ${run.details[call]}`);
  }
  return lines.join('\n');
}
