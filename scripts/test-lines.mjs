// The test files and the Node lines CI runs each of them on (scripts/test-lines.json): a file whose behaviour depends
// on the runtime (native addons, the HTTP stack, streams, timers, crypto, child processes, worker threads, the URL
// parser, loading installed packages) runs on every line CI tests; any other runs on the first line, the machine's
// Node, which runs the whole suite. `npm test` always runs every file. Only Node's own modules are imported, so
// scripts/run-tests.mjs can use this before it knows the dependencies are installed.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('..', import.meta.url));
export const linesFile = 'scripts/test-lines.json';

/** The folders searched for test files, and the folders inside them that are not searched. */
const testRoots = ['test', 'server', 'conformance'];
const skipDirs = new Set(['node_modules', 'generated', 'site', 'data']);

/** Every `*.test.ts` of the suite, as absolute paths, in a stable order. */
export function testFiles(base = root) {
  const found = [];
  const walk = (dir) => {
    let entries;
    try {
      entries = readdirSync(dir);
    } catch {
      return;
    }
    for (const entry of entries.sort()) {
      const path = join(dir, entry);
      if (statSync(path).isDirectory()) {
        if (!skipDirs.has(entry)) walk(path);
      } else if (entry.endsWith('.test.ts')) {
        found.push(path);
      }
    }
  };
  for (const dir of testRoots) walk(join(base, dir));
  return found;
}

/** The manifest: `reasons` (id → { everyLine, why }) and `files` (path relative to the root → reason id). */
export function readTestLines(base = root) {
  return JSON.parse(readFileSync(join(base, linesFile), 'utf8'));
}

const name = (base, file) => relative(base, file).split(sep).join('/');

/**
 * Whether a test file runs on every line CI tests. A file the manifest does not name (or names with an unknown
 * reason) does: running it more often is the safe side, and test/architecture/test-lines.test.ts fails until it is
 * named.
 */
export function runsOnEveryLine(file, lines = readTestLines(), base = root) {
  const reason = lines.reasons[lines.files[name(base, file)]];
  return reason === undefined || reason.everyLine === true;
}

/** What is wrong with the manifest for these test files: each problem as one line saying what to change. */
export function manifestProblems(files = testFiles(), lines = readTestLines(), base = root) {
  const reasonList = Object.entries(lines.reasons)
    .map(([id, { everyLine, why }]) => `    ${id} (${everyLine ? 'every line' : 'first line only'}): ${why}`)
    .join('\n');
  const names = new Set(files.map((file) => name(base, file)));
  const problems = [];
  for (const file of names) {
    if (lines.files[file] === undefined)
      problems.push(`${file} has no line: add "${file}": "<reason>" to "files" in ${linesFile}`);
  }
  if (problems.length > 0)
    problems.push(
      `<reason> is the one of the manifest's reasons that says why the file runs where it runs:\n${reasonList}`,
    );
  for (const [file, reason] of Object.entries(lines.files)) {
    if (!names.has(file)) problems.push(`${linesFile} names ${file}, which is not a test file: remove it`);
    else if (lines.reasons[reason] === undefined)
      problems.push(`${file} has the reason "${reason}", which ${linesFile} does not define: use one of its reasons`);
  }
  return problems;
}
