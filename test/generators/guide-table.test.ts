// The matrix that docs/guides/client-generators.md shows readers is the one generators.test.ts asserts: every call's
// row, in the order of expected.ts, with each generator's cell as EXPECTED has it. Without this the guide could
// promise a call that the matrix records as failing (or hide one that now works).
import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { CALLS, EXPECTED, GUIDE_ROWS } from './expected.ts';
import { GENERATORS } from './generators.ts';

const guide = readFileSync(new URL('../../docs/guides/client-generators.md', import.meta.url), 'utf8');

/** A generator's column header in the guide: its id with a space for the dash after orval and before a version. */
const guideColumn = (id: string) =>
  id.replace(/^orval(\d*)-/, (_, major: string) => `orval ${major ? `${major} ` : ''}`).replace(/-(\d)/, ' $1');

/** The guide's first table whose header starts with `call`: header cells and rows of cells. */
function matrixTable(markdown: string): { header: string[]; rows: string[][] } {
  const lines = markdown.split('\n');
  const start = lines.findIndex((line) => /^\|\s*call\s*\|/.test(line));
  assert.ok(start >= 0, 'the guide has no table whose first column is `call`');
  const cells = (line: string) =>
    line
      .slice(1, line.lastIndexOf('|'))
      .split('|')
      .map((cell) => cell.trim());
  const body = lines.slice(start + 2).filter((line, i, all) => all.slice(0, i + 1).every((l) => l.startsWith('|')));
  return { header: cells(lines[start]!), rows: body.map(cells) };
}

test('the guide names the generators of the matrix as its columns', () => {
  const { header } = matrixTable(guide);
  assert.equal(
    header.slice(1),
    GENERATORS.map((generator) => guideColumn(generator.id)),
  );
});

test("the guide's rows are the matrix's calls with the cells expected.ts asserts", () => {
  const { rows } = matrixTable(guide);
  assert.equal(
    rows.map((row) => row[0]),
    CALLS.map((call) => GUIDE_ROWS[call]),
  );
  for (const [index, call] of CALLS.entries())
    assert.equal(
      rows[index]!.slice(1),
      GENERATORS.map((generator) => EXPECTED[generator.id]![call]),
      `row "${GUIDE_ROWS[call]}"`,
    );
});

test.run();
