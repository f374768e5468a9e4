// `npm install`'s own output: the engine and the sample recordings the README uses are set up or named with the
// command that installs them, and a last line says what to do next (where the recordings and the docs are).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { postinstall, SAMPLES, samplePackages } from '../../scripts/postinstall.mjs';

const test = suite('npm install output');

test('with everything installed: one line, naming the server, the docs and the recordings', () => {
  const lines: string[] = [];
  const asked: string[][] = [];
  postinstall({ ensure: (packages: string[]) => (asked.push(packages), []), log: (line: string) => lines.push(line) });
  assert.equal(asked[1], samplePackages);
  assert.equal(samplePackages, ['pocketsphinx-testdata']);
  assert.is(lines.length, 1);
  assert.match(lines[0]!, /npm start serves http:\/\/127\.0\.0\.1:8080 \(docs at \/docs\/ after npm run docs\)/);
  assert.ok(lines[0]!.includes(SAMPLES), lines[0]);
});

test('with the recordings missing: the package step names them, and the last line says what is missing', () => {
  const lines: string[] = [];
  const purposes: string[] = [];
  postinstall({
    ensure: (packages: string[], purpose: string) => {
      purposes.push(purpose);
      return packages.includes('pocketsphinx-testdata') ? ['pocketsphinx-testdata'] : [];
    },
    log: (line: string) => lines.push(line),
  });
  assert.match(
    purposes[1]!,
    /sample recordings of the README and the guides \(\/usr\/share\/pocketsphinx\/test\/data\)/,
  );
  assert.match(lines.at(-1)!, /install what is listed above/);
});

test.run();
