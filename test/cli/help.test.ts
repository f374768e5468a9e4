// `--help` is an answer, not bad usage: both command-line tools print their usage on stdout and exit 0, while a
// command line they cannot run still exits 2 with its message on stderr and nothing on stdout.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';

const root = new URL('../../', import.meta.url).pathname;
const test = suite('command-line help');

const conformance = (args: string[]) =>
  spawnSync(process.execPath, [join(root, 'conformance/bin/scribe-conformance.mjs'), ...args], {
    cwd: root,
    encoding: 'utf8',
  });
// without SCRIBE_API_KEY: help must not need the environment a command needs
const client = (args: string[]) =>
  spawnSync(process.execPath, ['--import', 'tsx', join(root, 'client/src/cli/main.ts'), ...args], {
    cwd: root,
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '' },
  });

test('scribe-conformance --help and -h: usage on stdout, exit 0 (with --rules too)', () => {
  for (const args of [['--help'], ['-h'], ['--base-url', 'http://127.0.0.1:9', '--help'], ['--rules', '--help']]) {
    const result = conformance(args);
    assert.is(result.status, 0, `${args.join(' ')}: ${result.stderr}`);
    assert.match(result.stdout, /^Usage: scribe-conformance --base-url URL/);
    assert.match(result.stdout, /--phases a,b/);
    assert.is(result.stderr, '');
  }
});

test('scribe-conformance bad usage: exit 2, the message on stderr, nothing on stdout', () => {
  for (const [args, message] of [
    [[], /--base-url is required/],
    [['--bogus'], /Unknown option '--bogus'/],
    [['--base-url', 'http://127.0.0.1:9', '--phases', 'nope'], /unknown phase nope/],
  ] as const) {
    const result = conformance([...args]);
    assert.is(result.status, 2, args.join(' '));
    assert.match(result.stderr, message);
    assert.is(result.stdout, '');
  }
});

const scribe = (args: string[]) =>
  spawnSync(process.execPath, [join(root, 'server/bin/scribe.mjs'), ...args], {
    cwd: root,
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '' },
  });

test('scribe (the operator CLI) asked for client work says in one line where the client CLI is: exit 1', () => {
  for (const command of ['stream', 'transcribe', 'chat']) {
    const result = scribe([command, 'talk.wav', '--fast']);
    assert.is(result.status, 1, command);
    assert.is(
      result.stderr,
      `scribe: ${command} is not a command of the server's CLI: use npm run -s scribe-client -- ${command} … ` +
        '(the scribe-client CLI: client/README.md)\n',
    );
    assert.is(result.stdout, '');
  }
  const help = scribe(['--help']);
  assert.is(help.status, 0);
  assert.not.match(help.stdout, /scribe stream/);
  assert.match(help.stdout, /Streaming, transcribing and chatting with a running server: npm run -s scribe-client -- /);
});

test('scribe-client --help, -h, help and a command with --help: usage on stdout, exit 0', () => {
  for (const args of [['--help'], ['-h'], ['help']]) {
    const result = client(args);
    assert.is(result.status, 0, `${args.join(' ')}: ${result.stderr}`);
    assert.match(result.stdout, /^Usage:\n {2}scribe-client transcribe/);
    assert.is(result.stderr, '');
  }
  for (const command of ['transcribe', 'stream', 'chat']) {
    const result = client([command, '--help']);
    assert.is(result.status, 0, `${command} --help: ${result.stderr}`);
    assert.match(result.stdout, new RegExp(`^Usage: scribe-client ${command} `));
    assert.is(result.stderr, '');
  }
});

test('scribe-client bad usage: exit 2, the message on stderr, nothing on stdout', () => {
  for (const [args, message] of [
    [[], /a command is required/],
    [['bogus'], /unknown command bogus/],
  ] as const) {
    const result = client([...args]);
    assert.is(result.status, 2, args.join(' '));
    assert.match(result.stderr, message);
    assert.is(result.stdout, '');
  }
});

test.run();
