// The README's key step and "Transcribe a file" section work as written: the admin CLI command captures a key, and
// the curl commands (the task id kept in a variable) and the generated-client snippet run unchanged (only the server
// address and the key are filled in) against a real server process with the real engine, and produce the transcript.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
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

test('the key step: the admin CLI command leaves the new key in KEY', () => {
  const [, keyBlock] = codeBlocks(readmeSection('## Try everything'), 'sh');
  const [command] = shellCommands(keyBlock!);
  assert.match(command!, /^KEY=\$\(npm run -s scribe -- admin account create .*--json \| node -pe /);
  // The operators' CLI writes to the database of the server it is run beside: here a data dir of the test's own.
  const dataDir = mkdtempSync(join(tmpdir(), 'scribe-readme-key-'));
  try {
    const key = execFileSync('bash', ['-c', `${command}; echo "$KEY"`], {
      cwd: root,
      env: { ...process.env, SCRIBE_DATA_DIR: dataDir },
    })
      .toString()
      .trim();
    assert.match(key, /^sk_live_\S+$/);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('the curl commands: sync create with the id kept, status until completed, the result as SRT', async () => {
  const [shell] = codeBlocks(readmeSection('### Transcribe a file'), 'sh');
  const [audio, create, status, result] = shellCommands(shell!);
  assert.match(audio!, /^AUDIO=\S+\.wav$/);
  assert.match(create!, /^ID=\$\(curl /);
  const run = (command: string, id = '') =>
    execFileSync('bash', ['-c', command.replaceAll(README_BASE, base)], {
      env: { ...process.env, KEY: key, ID: id },
    }).toString();
  const id = run(`${audio}; ${create}; echo "$ID"`).trim();
  assert.match(id, /^[0-9a-f-]{36}$/);
  let current = JSON.parse(run(status!, id)).data;
  for (let i = 0; i < 600 && !['completed', 'failed'].includes(current.status); i++) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    current = JSON.parse(run(status!, id)).data;
  }
  assert.is(current.status, 'completed', JSON.stringify(current.error));
  assert.ok(current.result.text.split(' ').length > 5, current.result.text);
  const srt = run(result!, id);
  assert.match(srt, /^1\n00:00:\d\d,\d{3} --> 00:00:\d\d,\d{3}\n/);
});

test('the generated-client snippet, saved as transcribe.mts at the repository root, prints the transcript', () => {
  const [snippet] = codeBlocks(readmeSection('### Transcribe a file'), 'ts');
  if (!snippet?.includes(README_BASE) || !readmeSection('### Transcribe a file').includes('npx tsx transcribe.mts')) {
    assert.unreachable('the README snippet changed: update this test');
    return;
  }
  // At the repository root, as the README says, so its `./generated/...` imports resolve; only the address changes.
  const file = join(root, `.readme-snippet-${process.pid}.mts`);
  writeFileSync(file, snippet.replace(README_BASE, base));
  try {
    const out = execFileSync('npx', ['tsx', file], { cwd: root, env: { ...process.env, KEY: key } });
    assert.ok(out.toString().trim().split(' ').length > 5, out.toString());
  } finally {
    rmSync(file, { force: true });
  }
});

test.run();
