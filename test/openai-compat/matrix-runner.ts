// Running one cell of the compatibility matrix and judging it, shared by the matrix on the machine's Node (the
// libraries pinned for Node 20, in this process) and the matrix on a newer Node (the newest releases, in a child).
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Cell, CellContext } from './matrix.ts';

/** How long a cell may take: a library that waits forever is a failure of its cell, not of the run. */
const CELL_TIMEOUT_MS = 20_000;

/** Loads a library from the install folder `folder` (one with its own package.json and node_modules). */
export function loaderFor(folder: string): CellContext['load'] {
  const requireThere = createRequire(join(folder, 'package.json'));
  return async (name) => import(pathToFileURL(requireThere.resolve(name)).href);
}

/** Runs a cell; its failure (an error or the timeout), or undefined when it ran through. */
export async function runCell(cell: Cell, context: CellContext): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      cell.run(context),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${CELL_TIMEOUT_MS / 1000} s`)), CELL_TIMEOUT_MS);
      }),
    ]);
    return undefined;
  } catch (error) {
    return error ?? new Error('failed without an error');
  } finally {
    clearTimeout(timer);
  }
}

export const messageOf = (failure: unknown): string => (failure instanceof Error ? failure.message : String(failure));

/**
 * What the table shows for a cell, or a thrown error when the cell did not give what it is expected to: a cell that
 * works must run through; a cell that fails must fail with the message the guides name.
 */
export function verdict(cell: Cell, failure: unknown): string {
  if (cell.expect === 'works') {
    if (failure !== undefined) throw failure instanceof Error ? failure : new Error(messageOf(failure));
    return 'works';
  }
  if (failure === undefined)
    throw new Error(`${cell.library} ${cell.call} was expected to fail with ${cell.expect} but worked`);
  const message = messageOf(failure);
  if (!cell.expect.test(message)) {
    throw new Error(`${cell.library} ${cell.call} failed with "${message}", expected ${cell.expect}`);
  }
  return `fails: ${message.slice(0, 120)}`;
}

/** The table the guides print. */
export function matrixTable(cells: Cell[], seen: Map<Cell, string>): string {
  const rows = cells.map((cell) => `| ${cell.library} | ${cell.call} | ${seen.get(cell) ?? 'not run'} |`);
  return ['| library | call | result |', '| --- | --- | --- |', ...rows].join('\n');
}
