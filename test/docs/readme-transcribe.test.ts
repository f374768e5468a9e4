// The README's "Transcribe a file" section works as written: its curl commands and its generated-client snippet run
// unchanged (only the server address, the key, the task id and the input file are filled in) against a real server
// process with the real engine, and produce the transcript.
import { execFileSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { goforward } from '../../server/src/test-support/audio.ts';
import { createAccountOn, startScribe, type ScribeProcess } from '../../server/src/test-support/scribe-process.ts';
import { codeBlocks, README_BASE, readmeSection, shellCommands } from '../support/readme.ts';

const root = new URL('../../', import.meta.url).pathname;
const test = suite('README: transcribe a file');
let server: ScribeProcess | undefined;
let base = '';
let key = '';

test.before(async () => {
  server = await startScribe('sqlite');
  base = server.base;
  key = (await createAccountOn(base, 100)).apiKey;
});

test.after(async () => {
  await server?.stop();
});

test('the curl commands: sync create, status until completed, the result as SRT', async () => {
  const [shell] = codeBlocks(readmeSection('### Transcribe a file'), 'sh');
  const [create, status, result] = shellCommands(shell!).filter((line) => line.startsWith('curl '));
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
  const [snippet] = codeBlocks(readmeSection('### Transcribe a file'), 'ts');
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
