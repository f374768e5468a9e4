// The README's "Transcribe a file" section works as written: its curl commands and its generated-client snippet run
// unchanged (only the server address, the key, the task id and the input file are filled in) against a real server
// process with the real engine, and produce the transcript.
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { goforward } from '../../server/src/test-support/audio.ts';
import { ADMIN_TOKEN, freshDatabase } from '../../server/src/test-support/harness.ts';
import { freePort, startProcess, type Started } from '../support/processes.ts';

const root = new URL('../../', import.meta.url).pathname;
const README_BASE = 'http://127.0.0.1:8080';

/** The section of the README between two headings. */
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
function commandsOf(block: string): string[] {
  return block
    .replace(/\\\n\s*/g, '')
    .split('\n')
    .map((line) => line.replace(/\s+#.*$/, '').trim())
    .filter((line) => line.startsWith('curl '));
}

const test = suite('README: transcribe a file');
let server: Started | undefined;
let drop: (() => Promise<void>) | undefined;
let base = '';
let key = '';

test.before(async () => {
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
      SCRIBE_SECRET_KEY: 'b'.repeat(64),
      SCRIBE_RATE_LIMIT_RPS: '1000',
      SCRIBE_WORKERS: '1',
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
});

test('the curl commands: sync create, status until completed, the result as SRT', async () => {
  const [shell] = blocks(section('### Transcribe a file'), 'sh');
  const [create, status, result] = commandsOf(shell!);
  const run = (command: string, id = '') =>
    execFileSync('bash', ['-c', command.replaceAll(README_BASE, base).replaceAll('<id>', id)], {
      env: { ...process.env, KEY: key },
    }).toString();
  const task = JSON.parse(run(create!)).data;
  assert.is(task.status, 'ready');
  let current = task;
  for (let i = 0; i < 600 && !['completed', 'failed'].includes(current.status); i++) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    current = JSON.parse(run(status!, task.id)).data;
  }
  assert.is(current.status, 'completed', JSON.stringify(current.error));
  assert.ok(current.result.text.split(' ').length > 5, current.result.text);
  const srt = run(result!, task.id);
  assert.match(srt, /^1\n00:00:\d\d,\d{3} --> 00:00:\d\d,\d{3}\n/);
});

test('the generated-client snippet prints the transcript', () => {
  const [snippet] = blocks(section('### Transcribe a file'), 'ts');
  if (!snippet?.includes("'talk.wav'") || !snippet.includes(README_BASE)) {
    assert.unreachable('the README snippet changed: update this test');
    return;
  }
  // At the repository root, so its `./generated/...` imports resolve as they do for a reader.
  const file = join(root, `.readme-snippet-${process.pid}.ts`);
  writeFileSync(file, snippet.replace("'talk.wav'", JSON.stringify(goforward('wav'))).replace(README_BASE, base));
  try {
    const out = execFileSync(process.execPath, ['--import', 'tsx', file], { env: { ...process.env, KEY: key } });
    assert.is(out.toString().trim(), 'go forward ten meters');
  } finally {
    rmSync(file, { force: true });
  }
});

test.run();
