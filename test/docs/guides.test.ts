// The guides work as written: every guide starts with `# Title`, marks each code block as run or says why it cannot
// run, and its run blocks — shell, TypeScript and Python, in order, sharing exported variables as a reader's shell
// session would — exit 0 against a real reference server (SQLite, the real speech engine, the default rate limit).
// A block checks its own result (`curl --fail`, `test …`), so a guide whose answer changed fails here; and a block that
// prints something shows what it prints in the `output` block after it, which must match what it printed (`…` standing
// for what changes from run to run: ids, keys, times).
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ADMIN_TOKEN } from '../../server/src/test-support/test-databases.ts';
import { startScribe, type ScribeProcess } from '../../server/src/test-support/scribe-process.ts';
import { guideFiles, guidesDir, outputPattern, readGuide, type GuideBlock } from '../support/guides.ts';

const root = new URL('../../', import.meta.url).pathname;
const test = suite('docs/guides');
let server: ScribeProcess | undefined;
const modelDir = mkdtempSync(join(tmpdir(), 'scribe-guides-'));

/**
 * A reader's own folder outside the repository, where the TypeScript samples run as the guides say (saved as `.mts`,
 * run with `npx tsx`); its node_modules stands for the `npm install tsx ws openai` the guides name.
 */
const readerDir = mkdtempSync(join(tmpdir(), 'scribe-guide-reader-'));
symlinkSync(join(root, 'node_modules'), join(readerDir, 'node_modules'), 'dir');

const runners: Record<string, { ext: string; dir: string; command: (file: string) => string }> = {
  ts: { ext: 'mts', dir: readerDir, command: (file) => `(cd ${JSON.stringify(readerDir)} && npx tsx ${file})` },
  python: { ext: 'py', dir: root, command: (file) => `python3 ${file}` },
};

/** The line the guide's script prints before each block, so each block's own output can be told apart. */
const blockMark = '@@@ guide block ';

/** What each block printed, in order (the script's output split at the block marks). */
const blockOutputs = (stdout: string): string[] =>
  stdout
    .split(new RegExp(`^${blockMark}\\d+\\n`, 'm'))
    .slice(1)
    .map((printed) => printed.trim());

/** What a guide's script printed and how it ended. */
interface GuideRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

/**
 * A guide's run blocks as one bash script, in order, sharing exported variables as a reader's shell session would;
 * TypeScript blocks are written as `.mts` files into a reader's folder outside the repository and run there with
 * `npx tsx`, as the guides say; Python blocks beside the repository's package.json; both run from the script.
 */
function runGuide(file: string, index: number, blocks: GuideBlock[]): Promise<GuideRun> {
  const written: string[] = [];
  const script = ['set -euo pipefail', `cd ${JSON.stringify(root)}`];
  blocks.forEach((block, n) => {
    // On a line of its own even after output without a final newline (curl -s prints none).
    script.push(`echo '### ${file}:${block.line}' >&2`, `printf '\\n${blockMark}${n}\\n'`);
    const runner = runners[block.lang];
    if (!runner) {
      script.push(block.code);
      return;
    }
    const path = join(runner.dir, `.guide-${process.pid}-${index}-${n}.${runner.ext}`);
    writeFileSync(path, block.code);
    written.push(path);
    script.push(runner.command(JSON.stringify(path)));
  });
  return new Promise<GuideRun>((resolve) => {
    const child = spawn('bash', ['-c', script.join('\n')], {
      env: { ...process.env, SCRIBE_BASE_URL: server!.base, SCRIBE_ADMIN_TOKEN: ADMIN_TOKEN },
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 240_000,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', (error) => (stderr += `\n${error.message}`));
    child.once('close', (status) => {
      for (const path of written) rmSync(path, { force: true });
      resolve({ status, stdout, stderr });
    });
  });
}

/** At most `count` of the works given to it running at once; the rest wait their turn, in the order given. */
function lanes(count: number) {
  let free = count;
  const waiting: (() => void)[] = [];
  return async <T>(work: () => Promise<T>): Promise<T> => {
    if (free > 0) free -= 1;
    else await new Promise<void>((resolve) => waiting.push(resolve));
    try {
      return await work();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else free += 1;
    }
  };
}

const runnable = guideFiles()
  .map((file) => ({ file, blocks: readGuide(file).blocks.filter((b) => b.run) }))
  .filter(({ blocks }) => blocks.length > 0);
/** Each guide's run, started in `before` once the server is up. */
const guideRuns = new Map<string, Promise<GuideRun>>();

test.before(async () => {
  // The chat model the OpenAI SDK guide talks to: the tiny test model its norun block shows how to make.
  const model = join(modelDir, 'tiny.gguf');
  execFileSync(process.execPath, [join(root, 'server/bin/scribe.mjs'), 'models', 'make-tiny', '--out', model]);
  server = await startScribe('sqlite', {
    SCRIBE_RATE_LIMIT_RPS: '10',
    SCRIBE_URL_ALLOW_HOSTS: '127.0.0.1',
    SCRIBE_STREAM_WORKERS: '1',
    SCRIBE_MINI_MODEL: model,
  });
  // The guides run two at a time, each on its own account, beside the tests: much of a guide is waiting (on a
  // transcription, on the rate limit its conformance run keeps under), which another guide's commands fill. Each
  // guide's test awaits its own run.
  const inLane = lanes(2);
  runnable.forEach(({ file, blocks }, index) =>
    guideRuns.set(
      file,
      inLane(() => runGuide(file, index, blocks)),
    ),
  );
});

test.after(async () => {
  await Promise.allSettled(guideRuns.values());
  await server?.stop();
  rmSync(modelDir, { recursive: true, force: true });
  rmSync(readerDir, { recursive: true, force: true });
});

test('every guide starts with a title and marks every code block as run or norun with a reason', () => {
  const files = guideFiles();
  assert.ok(files.length >= 5, `only ${files.length} guides`);
  for (const file of files) {
    const guide = readGuide(file);
    assert.ok(guide.title, `${file} does not start with "# Title"`);
    assert.equal(guide.unmarked, [], `${file}: blocks without run / norun: reason`);
    for (const block of guide.blocks.filter((b) => b.run))
      assert.ok(block.lang === 'sh' || block.lang in runners, `${file}:${block.line} cannot run ${block.lang}`);
  }
});

test('every TypeScript sample says how to run it: the .mts file it is saved as and npx tsx', () => {
  for (const file of guideFiles()) {
    const lines = readFileSync(join(guidesDir, file), 'utf8').split('\n');
    for (const block of readGuide(file).blocks.filter((b) => b.run && b.lang === 'ts')) {
      // The paragraph before the block (its line is the fence's, counted from 1).
      const before = lines.slice(Math.max(0, block.line - 8), block.line - 1).join(' ');
      const saved = before.match(/save[d]? (?:it )?as `([\w-]+\.mts)`/i)?.[1];
      assert.ok(saved, `${file}:${block.line}: the text before the sample names no .mts file to save it as`);
      assert.ok(before.includes(`npx tsx ${saved}`), `${file}:${block.line}: no "npx tsx ${saved}"`);
    }
  }
});

for (const { file, blocks } of runnable) {
  test(`${file}: its ${blocks.length} run blocks succeed against the reference server`, async () => {
    const run = guideRuns.get(file);
    assert.ok(run, 'the guide did not start: no reference server');
    const result = await run;
    const where = result.stderr.match(/### (\S+)(?![\s\S]*### )/)?.[1] ?? file;
    assert.is(result.status, 0, `${where} failed:\n${result.stdout.slice(-2000)}\n${result.stderr.slice(-2000)}`);
    const printed = blockOutputs(result.stdout);
    const wrong = blocks.flatMap((block, n) => {
      const output = printed[n] ?? '';
      if (block.output === undefined)
        return output ? [`${file}:${block.line} printed this but shows no output block:\n${output}`] : [];
      return outputPattern(block.output).test(output)
        ? []
        : [`${file}:${block.line} printed this, not its output block:\n${output}`];
    });
    assert.equal(wrong, [], wrong.join('\n\n'));
  });
}

test.run();
