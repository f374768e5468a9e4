// How a benchmark hands its result rows to `npm run bench` (bench/all.ts): when BENCH_RESULT_FILE is set, the rows
// are written there as JSON; run alone, a benchmark only prints its own report.
import { writeFileSync } from 'node:fs';

export interface BenchRow {
  benchmark: string;
  measured: string;
  target: string;
  /** undefined: reported only, no target. */
  met: boolean | undefined;
}

export function writeBenchResult(name: string, rows: BenchRow[]): void {
  const file = process.env.BENCH_RESULT_FILE;
  if (file) writeFileSync(file, JSON.stringify({ name, rows }));
}
