// The `scribe-conformance` command itself: exit 2 on bad usage, exit 0 against a server that follows the contract
// for what was asked (a tiny health endpoint built from the document's own example), exit 1 with a "Reproduce
// with:" curl against one that crashes — and the NDJSON report says the same.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { bundledSpec } from './crafted.ts';

const root = new URL('../../', import.meta.url).pathname;
const test = suite('scribe-conformance CLI');
const dir = mkdtempSync(join(tmpdir(), 'scribe-conformance-cli-'));
const healthExample = (
  bundledSpec().byId('getHealth').responses['200']!.content!['application/json']!.examples as Record<
    string,
    { value: unknown }
  >
).ok!.value;

async function serve(handler: Parameters<typeof createServer>[1]): Promise<{ server: Server; url: string }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** Runs a command without blocking this process (the fake servers live here: spawnSync would starve them). */
function run(command: string, args: string[]) {
  return new Promise<{ status: number | null; stdout: string }>((resolve) => {
    const child = spawn(command, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.on('close', (status) => resolve({ status, stdout }));
  });
}

const cli = (args: string[]) => run(process.execPath, [join(root, 'conformance/bin/scribe-conformance.mjs'), ...args]);

test.after(() => rmSync(dir, { recursive: true, force: true }));

test('bad usage exits 2 with the usage text', () => {
  const result = spawnSync(
    process.execPath,
    [join(root, 'conformance/bin/scribe-conformance.mjs'), '--phases', 'nope', '--base-url', 'http://127.0.0.1:9'],
    { cwd: root, encoding: 'utf8' },
  );
  assert.is(result.status, 2);
  assert.match(result.stderr, /unknown phase nope/);
  const missing = spawnSync(process.execPath, [join(root, 'conformance/bin/scribe-conformance.mjs')], {
    cwd: root,
    encoding: 'utf8',
  });
  assert.is(missing.status, 2);
  assert.match(missing.stderr, /--base-url is required/);
});

test('a conforming health endpoint: exit 0, and the NDJSON summary passes', async () => {
  const { server, url } = await serve((request, response) => {
    const headers = { 'X-Request-Id': 'req-1', 'Content-Type': 'application/json; charset=utf-8' };
    if (request.url === '/health' && request.method === 'GET')
      return response.writeHead(200, headers).end(JSON.stringify(healthExample));
    const error = {
      error: { type: 'invalid_request_error', code: 'method_not_allowed', message: 'Use GET.', param: null },
    };
    response.writeHead(405, { ...headers, Allow: 'GET' }).end(JSON.stringify(error));
  });
  try {
    const ndjson = join(dir, 'ok.ndjson');
    const result = await cli([
      '--base-url',
      url,
      '--include',
      'getHealth',
      '--phases',
      'examples,fuzzing',
      '--report',
      `ndjson=${ndjson}`,
    ]);
    assert.is(result.status, 0, result.stdout);
    assert.match(result.stdout, /RESULT: PASSED/);
    const summary = JSON.parse(readFileSync(ndjson, 'utf8').trim().split('\n').at(-1)!);
    assert.is(summary.passed, true);
    assert.ok(summary.cases >= 2);
    // the run's rule coverage: the health rules provoked, the rest not run because --include left them out
    assert.match(result.stdout, /RULES\n\n {4}Rules: \d+ with checks: \d+ provoked/);
    const rules = await cli(['--rules', '--from-report', ndjson]);
    assert.is(rules.status, 0, rules.stdout);
    assert.match(rules.stdout, /health\.\S+ +passed +\d+ cases \[[a-z_, ]+\] by examples/);
    assert.match(rules.stdout, /not run +\(\w+ is not in this run \(--include\/--exclude\)\)/);
    assert.match(rules.stdout, /Rules: \d+ with checks: [1-9]\d* provoked \([1-9]\d* passed, 0 failed\), \d+ not run/);
    const missing = await cli(['--rules', '--from-report', join(dir, 'none.ndjson')]);
    assert.is(missing.status, 2, missing.stdout);
  } finally {
    server.close();
  }
});

test('a crashing server: exit 1, a failure block with a curl that reproduces it', async () => {
  const { server, url } = await serve((_request, response) => {
    response.writeHead(500, { 'Content-Type': 'text/plain' }).end('boom');
  });
  try {
    const result = await cli(['--base-url', url, '--include', 'getHealth', '--phases', 'examples']);
    assert.is(result.status, 1, result.stdout);
    assert.match(result.stdout, /Server error {2}\[not_a_server_error · critical · examples\]/);
    const curl = /Reproduce with:\s+(curl .+)/.exec(result.stdout)?.[1];
    assert.ok(curl, result.stdout);
    const replay = await run('sh', ['-c', `${curl} -s -o /dev/null -w '%{http_code}'`]);
    assert.is(replay.stdout, '500');
  } finally {
    server.close();
  }
});

test.run();
