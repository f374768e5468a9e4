// The README's "Stream in real time" and "Chat and embeddings" sections work as written: the `scribe stream` command,
// the tiny-model command, the curl calls and the OpenAI SDK snippet run unchanged (only the server address, the key
// and the model file's folder are filled in) against a real server process with the real engines.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ADMIN_TOKEN, freshDatabase } from '../../server/src/test-support/harness.ts';
import { freePort, startProcess, type Started } from '../support/processes.ts';

const root = new URL('../../', import.meta.url).pathname;
const README_BASE = 'http://127.0.0.1:8080';

/** The section of the README from a heading to the next one. */
function section(heading: string): string {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const start = readme.indexOf(heading);
  assert.ok(start >= 0, `README has no "${heading}"`);
  const end = readme.indexOf('\n### ', start + heading.length);
  return readme.slice(start, end < 0 ? undefined : end);
}

const blocks = (text: string, lang: string) =>
  [...text.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]!);

/** The shell block's commands, continuation lines joined, trailing comments dropped. */
const commandsOf = (block: string): string[] =>
  block
    .replace(/\\\n\s*/g, '')
    .split('\n')
    .map((line) => line.replace(/\s+#.*$/, '').trim())
    .filter((line) => line && !line.startsWith('#'));

const test = suite('README: streaming, chat and embeddings');
const dir = mkdtempSync(join(tmpdir(), 'scribe-readme-chat-'));
let server: Started | undefined;
let drop: (() => Promise<void>) | undefined;
let base = '';
let key = '';

const run = (command: string) =>
  execFileSync('bash', ['-c', command.replaceAll(README_BASE, base).replaceAll('data/tiny.gguf', modelPath)], {
    cwd: root,
    env: { ...process.env, KEY: key },
  }).toString();
const modelPath = join(dir, 'tiny.gguf');

test.before(async () => {
  // The chat section's first command makes the model the server is then started with.
  const [makeTiny, start] = commandsOf(blocks(section('### Chat and embeddings'), 'sh')[0]!);
  assert.match(makeTiny!, /models make-tiny --out data\/tiny\.gguf$/);
  assert.is(start, 'SCRIBE_MINI_MODEL=data/tiny.gguf npm start');
  run(makeTiny!);

  const database = await freshDatabase('sqlite');
  drop = database.drop;
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  server = await startProcess(
    process.execPath,
    ['--import', 'tsx', join(root, 'server/src/main.ts')],
    /Scribe is listening/,
    60_000,
    {
      ...database.env,
      PORT: String(port),
      NODE_ENV: 'test',
      LOG_LEVEL: 'info', // the readiness line
      SCRIBE_ADMIN_TOKEN: ADMIN_TOKEN,
      SCRIBE_SECRET_KEY: 'c'.repeat(64),
      SCRIBE_RATE_LIMIT_RPS: '1000',
      SCRIBE_WORKERS: '1',
      SCRIBE_STREAM_WORKERS: '1',
      SCRIBE_MINI_MODEL: modelPath,
    },
  );
  const created = await fetch(`${base}/admin/accounts`, {
    method: 'POST',
    headers: { 'X-Admin-Token': ADMIN_TOKEN, 'Content-Type': 'application/json' },
    body: JSON.stringify({ balance: 100 }),
  });
  assert.is(created.status, 201, await created.clone().text());
  key = ((await created.json()) as { api_key: string }).api_key;
});

test.after(async () => {
  await server?.stop();
  await drop?.();
  rmSync(dir, { recursive: true, force: true });
});

test('scribe stream prints the final and what the session cost', () => {
  const [command] = commandsOf(blocks(section('### Stream in real time'), 'sh')[0]!);
  // The CLI talks to the README's address unless told otherwise: point it at the test server.
  const out = run(`${command} --url ${base}`);
  assert.match(out, /go forward ten meters/);
  assert.match(out, /1 min billed, cost 2/);
});

test('the chat and embeddings curl calls answer an SSE stream and a vector', () => {
  const [, , chat, embedding] = commandsOf(blocks(section('### Chat and embeddings'), 'sh')[0]!);
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
  const [snippet] = blocks(section('### Chat and embeddings'), 'ts');
  if (!snippet?.includes(`'${README_BASE}/v3'`)) {
    assert.unreachable('the README snippet changed: update this test');
    return;
  }
  // At the repository root, so `openai` resolves from node_modules as it does for a reader.
  const file = join(root, `.readme-chat-snippet-${process.pid}.ts`);
  writeFileSync(
    file,
    `${snippet.replace(README_BASE, base)}\nconsole.log(JSON.stringify({ answer, vectors: vectors.data.length }));\n`,
  );
  try {
    const out = execFileSync(process.execPath, ['--import', 'tsx', file], { env: { ...process.env, KEY: key } });
    const { answer, vectors } = JSON.parse(out.toString()) as {
      answer: { object: string; choices: { message: { role: string } }[]; usage: { completion_tokens: number } };
      vectors: number;
    };
    assert.is(answer.object, 'chat.completion');
    assert.is(answer.choices[0]!.message.role, 'assistant');
    assert.ok(answer.usage.completion_tokens > 0);
    assert.is(vectors, 2);
  } finally {
    rmSync(file, { force: true });
  }
});

test.run();
