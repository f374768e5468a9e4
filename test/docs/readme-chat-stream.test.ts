// The README's "try everything" start line and its "Stream in real time" and "Chat and embeddings" sections work as
// written: the tiny-model command and the start line's settings, the `scribe-client stream` command, the curl calls
// and the OpenAI SDK snippet run unchanged (only the server address, the key and the model file's folder are filled
// in) against a real server process with the real engines.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { loadConfig } from '../../server/src/config.ts';
import { createAccountOn, startScribe, type ScribeProcess } from '../../server/src/test-support/scribe-process.ts';
import { codeBlocks, README_BASE, readmeSection, shellCommands } from '../support/readme.ts';

const root = new URL('../../', import.meta.url).pathname;
const test = suite('README: streaming, chat and embeddings');
const dir = mkdtempSync(join(tmpdir(), 'scribe-readme-chat-'));
const modelPath = join(dir, 'tiny.gguf');
let server: ScribeProcess | undefined;
let base = '';
let key = '';

const run = (command: string) =>
  execFileSync('bash', ['-c', command.replaceAll(README_BASE, base).replaceAll('data/tiny.gguf', modelPath)], {
    cwd: root,
    env: { ...process.env, KEY: key },
  }).toString();
const chatCommands = () => shellCommands(codeBlocks(readmeSection('### Chat and embeddings'), 'sh')[0]!);

/** The "try everything" start line's settings (`NAME=value … npm start`). */
function startLineSettings(line: string): Record<string, string> {
  const match = line.match(/^((?:[A-Z_]+=\S+ )+)npm start$/);
  if (!match) throw new Error(`the README's start line changed: ${line}`);
  return Object.fromEntries(
    match[1]!
      .trim()
      .split(' ')
      .map((pair) => pair.split('=', 2) as [string, string]),
  );
}

test.before(async () => {
  // The "try everything" block makes the model the server is then started with, with the start line's settings.
  const [makeTiny, adminToken, start] = shellCommands(codeBlocks(readmeSection('## Try everything'), 'sh')[0]!);
  assert.match(makeTiny!, /models make-tiny --out data\/tiny\.gguf$/);
  // The admin token is made at random (the server refuses published ones): the line makes one it accepts.
  assert.match(adminToken!, /^export SCRIBE_ADMIN_TOKEN=\$\(node -p /);
  const token = run(`${adminToken}; printf %s "$SCRIBE_ADMIN_TOKEN"`);
  assert.not.throws(() => loadConfig({ SCRIBE_ADMIN_TOKEN: token }), `the README's token ${token}`);
  const settings = startLineSettings(start!);
  assert.equal(Object.keys(settings).sort(), ['SCRIBE_MINI_MODEL', 'SCRIBE_URL_ALLOW_HOSTS']);
  assert.is(settings.SCRIBE_MINI_MODEL, 'data/tiny.gguf');
  run(makeTiny!);
  // The test's own admin token (createAccountOn uses it); the others as the README sets them.
  server = await startScribe('sqlite', {
    SCRIBE_STREAM_WORKERS: '1',
    SCRIBE_URL_ALLOW_HOSTS: settings.SCRIBE_URL_ALLOW_HOSTS!,
    SCRIBE_MINI_MODEL: modelPath,
  });
  base = server.base;
  key = (await createAccountOn(base, 100)).apiKey;
});

test.after(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

test('scribe-client stream prints the final and what the session cost', () => {
  const [command] = shellCommands(codeBlocks(readmeSection('### Stream in real time'), 'sh')[0]!);
  assert.match(command!, /npm run -s scribe-client -- stream /);
  // The CLI talks to the README's address unless told otherwise: point it at the test server.
  const out = run(`export SCRIBE_BASE_URL=${base}; ${command}`);
  assert.match(out, /go forward ten meters/);
  assert.match(out, /1 min billed, cost 2/);
});

test('the chat and embeddings curl calls answer an SSE stream and a vector', () => {
  const [chat, embedding] = chatCommands();
  const events = run(chat!)
    .split('\n\n')
    .map((event) => event.trim())
    .filter(Boolean);
  assert.is(events.at(-1), 'data: [DONE]');
  const chunks = events.slice(0, -1).map((event) => JSON.parse(event.replace(/^data: /, '')));
  assert.is(chunks[0].choices[0].delta.role, 'assistant');
  assert.ok(['stop', 'length'].includes(chunks.at(-1).choices[0].finish_reason), JSON.stringify(chunks.at(-1)));
  const vector = JSON.parse(run(embedding!)).data[0].embedding as number[];
  assert.is(vector.length, 512);
  assert.ok(Math.abs(Math.hypot(...vector) - 1) < 1e-4);
});

test('the OpenAI SDK snippet gets a chat answer and two vectors', () => {
  const [snippet] = codeBlocks(readmeSection('### Chat and embeddings'), 'ts');
  if (!snippet?.includes(`'${README_BASE}/v3'`)) {
    assert.unreachable('the README snippet changed: update this test');
    return;
  }
  // At the repository root, so `openai` resolves from node_modules as it does for a reader.
  const file = join(root, `.readme-chat-snippet-${process.pid}.mts`);
  // The snippet's own last line prints the answer; here it prints what the test reads.
  const printed = snippet.replace(/^console\.log\(.*\);$/m, '');
  assert.ok(printed !== snippet, 'the snippet prints what it got');
  writeFileSync(
    file,
    `${printed.replace(README_BASE, base)}\nconsole.log(JSON.stringify({ answer, vectors: vectors.data.length }));\n`,
  );
  try {
    const out = execFileSync(process.execPath, ['--import', 'tsx', file], { env: { ...process.env, KEY: key } });
    const { answer, vectors } = JSON.parse(out.toString()) as {
      answer: {
        object: string;
        choices: { message: { role: string } }[];
        usage: { prompt_tokens: number; completion_tokens: number };
      };
      vectors: number;
    };
    assert.is(answer.object, 'chat.completion');
    assert.is(answer.choices[0]!.message.role, 'assistant');
    assert.ok(answer.usage.prompt_tokens > 0, JSON.stringify(answer.usage));
    // The tiny test model has random weights: it samples its end token first now and then (no answer tokens).
    assert.ok(Number.isInteger(answer.usage.completion_tokens) && answer.usage.completion_tokens >= 0);
    assert.is(vectors, 2);
  } finally {
    rmSync(file, { force: true });
  }
});

test.run();
