// Every test file has its Node lines in scripts/test-lines.json, with a reason the manifest defines, and the manifest
// names no file that is gone: CI runs a file on every line it tests only when its reason says the file's behaviour
// depends on the runtime, so a file missing from the manifest would be run by chance, not by decision. The failure
// says what to add. Also that the reasons split the suite as .ci/run says (both kinds exist, every reason is used) and
// that `--every-line` selects exactly the files of the every-line reasons.
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { manifestProblems, readTestLines, root, runsOnEveryLine, testFiles } from '../../scripts/test-lines.mjs';

test('every test file has a line and a known reason, and every named file exists', () => {
  const problems = manifestProblems();
  assert.ok(problems.length === 0, `scripts/test-lines.json:\n${problems.join('\n')}`);
});

test('an unnamed file, a gone file and an unknown reason are each one line saying what to change', () => {
  const lines = {
    reasons: { pure: { everyLine: false, why: 'pure computation' }, timers: { everyLine: true, why: 'timing' } },
    files: { 'server/src/a.test.ts': 'pure', 'server/src/gone.test.ts': 'pure', 'test/b.test.ts': 'clocks' },
  };
  const files = ['server/src/a.test.ts', 'test/b.test.ts', 'test/new.test.ts'].map((file) => join(root, file));
  const problems = manifestProblems(files, lines);
  assert.equal(problems.slice(0, 1), [
    'test/new.test.ts has no line: add "test/new.test.ts": "<reason>" to "files" in scripts/test-lines.json',
  ]);
  assert.match(problems[1]!, /pure \(first line only\): pure computation\n {4}timers \(every line\): timing/);
  assert.equal(problems.slice(2), [
    'scripts/test-lines.json names server/src/gone.test.ts, which is not a test file: remove it',
    'test/b.test.ts has the reason "clocks", which scripts/test-lines.json does not define: use one of its reasons',
  ]);
  assert.ok(runsOnEveryLine(files[2]!, lines), 'an unnamed file runs on every line');
  assert.not.ok(runsOnEveryLine(files[0]!, lines));
});

test('the reasons split the suite: some files on every line, the rest on the first, and every reason in use', () => {
  const lines = readTestLines();
  const files = testFiles();
  const everyLine = files.filter((file) => runsOnEveryLine(file, lines));
  assert.ok(everyLine.length > 0 && everyLine.length < files.length, `${everyLine.length} of ${files.length}`);
  const used = new Set(Object.values(lines.files));
  assert.equal(
    Object.keys(lines.reasons).filter((reason) => !used.has(reason)),
    [],
    'reasons no file has',
  );
  const byReason = Object.values(lines.files).filter((reason) => lines.reasons[reason]?.everyLine).length;
  assert.is(everyLine.length, byReason);
  console.log(`${everyLine.length} of ${files.length} test files run on every line CI tests`);
});

test.run();
