// The OpenAI compatibility matrix: the libraries TypeScript users bring to an OpenAI-compatible server — the `openai`
// SDK, the Vercel AI SDK with its OpenAI provider and its openai-compatible provider, LangChain's ChatOpenAI and
// OpenAIEmbeddings, with zod — at the versions pinned in this folder's package.json (the newest that run on Node 20),
// installed by this test when missing, each call made against a real server (SQLite, the llama engine on the tiny
// GGUF, PocketSphinx, the embedded embeddings). Every cell is asserted: a cell that works checks what the library
// returned; a cell that does not checks the failure the guides name, so a change of either is seen here.
import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import { goforward } from '../../server/src/test-support/audio.ts';
import { startHarness, type Harness } from '../../server/src/test-support/harness.ts';
import { installPins } from '../support/pinned-install.ts';
import { tinyModelPath } from '../../server/src/chat/tiny-model-fixture.ts';
import { MATRIX, type Cell } from './matrix.ts';
import { loaderFor, matrixTable, runCell, verdict } from './matrix-runner.ts';

const here = dirname(fileURLToPath(import.meta.url));
const load = loaderFor(here);

const test = suite<{ server?: Harness; key: string; seen: Map<Cell, string> }>('OpenAI compatibility matrix', {
  key: '',
  seen: new Map(),
});

test.before(async (context) => {
  await installPins(here);
  context.server = await startHarness('sqlite', {
    env: { SCRIBE_MINI_MODEL: await tinyModelPath(), SCRIBE_RATE_LIMIT_RPS: '1000', SCRIBE_WORKERS: '1' },
  });
  context.key = (await context.server.provision({ balance: 100000 })).apiKey;
});

test.after(async (context) => {
  await context.server?.close();
  console.log(matrixTable(MATRIX, context.seen));
});

for (const cell of MATRIX) {
  test(`${cell.library}: ${cell.call} — ${cell.expect === 'works' ? 'works' : `fails (${cell.expect.source})`}`, async (context) => {
    const failure = await runCell(cell, {
      load,
      baseURL: `${context.server!.baseUrl}/v3`,
      apiKey: context.key,
      audio: readFileSync(goforward('wav')),
    });
    context.seen.set(cell, verdict(cell, failure));
  });
}

test.run();
