// The packages a reader installs from a running server: `npm run docs` packs scribe-client and scribe-conformance
// into the site (docs/site/packages/), the reference server serves them at /docs/packages/, and the Clients and tools
// guide's commands, run as written in a fresh folder outside the repository (npm installing from the tarballs' URLs
// on the server), print the output the guide shows. Both packages pass `npm publish --dry-run`.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ADMIN_TOKEN } from '../../server/src/test-support/test-databases.ts';
import { createAccountOn, startScribe, type ScribeProcess } from '../../server/src/test-support/scribe-process.ts';
import { outputPattern, readGuide, type GuideBlock } from '../support/guides.ts';
import { runToEnd } from '../support/processes.ts';
import { packLock } from '../../scripts/docs/pack-packages.mjs';

const root = new URL('../../', import.meta.url).pathname;
const site = join(root, 'docs/site');
const test = suite('client packages');
const reader = mkdtempSync(join(tmpdir(), 'scribe-reader-'));
let server: ScribeProcess | undefined;
let apiKey = '';
const manifest = (folder: string) =>
  JSON.parse(readFileSync(join(root, folder, 'package.json'), 'utf8')) as { name: string; version: string };

/** The guide's blocks this test runs: the ones its norun reason hands to this file. */
const clientBlocks = (): GuideBlock[] =>
  readGuide('clients.md').blocks.filter((block) => block.reason?.includes('client-packages.test.ts'));

/** Why the build or the server did not come up (uvu reports a failing `before` without its message). */
let setupFailure: string | undefined;

test.before(async () => {
  try {
    // The build a reader's server serves (as the docs site tests do, the real build: Redocly, guides, playground,
    // packs).
    execFileSync(process.execPath, [join(root, 'scripts/build-docs.mjs')], { cwd: root, stdio: 'pipe' });
    server = await startScribe('sqlite');
    apiKey = (await createAccountOn(server.base, 100)).apiKey;
  } catch (error) {
    const said = error as Error & { stderr?: Buffer };
    setupFailure = (said.stderr?.toString() || said.message).slice(-2000);
  }
});

test.before.each(() => assert.is(setupFailure, undefined, setupFailure));

test.after(async () => {
  await server?.stop();
  rmSync(reader, { recursive: true, force: true });
});

test('npm run docs packs both workspace packages into the site, under npm’s name and a version-less one', () => {
  for (const folder of ['client', 'conformance']) {
    const { name, version } = manifest(folder);
    for (const file of [`${name}-${version}.tgz`, `${name}.tgz`])
      assert.ok(existsSync(join(site, 'packages', file)), `docs/site/packages/${file}`);
  }
});

test('the running server serves the tarballs at /docs/packages/', async () => {
  for (const folder of ['client', 'conformance']) {
    const { name } = manifest(folder);
    const response = await fetch(`${server!.base}/docs/packages/${name}.tgz`);
    assert.is(response.status, 200, name);
    const bytes = Buffer.from(await response.arrayBuffer());
    assert.equal(bytes, readFileSync(join(site, 'packages', `${name}.tgz`)), `${name}: the served bytes`);
    assert.equal([...bytes.subarray(0, 2)], [0x1f, 0x8b], `${name}: a gzip file`);
  }
});

test('the Clients and tools guide, run as written in a fresh folder, installs from the server and prints its output', async () => {
  const blocks = clientBlocks();
  assert.ok(blocks.length >= 4, `only ${blocks.length} blocks to run`);
  const ran: string[] = [];
  for (const block of blocks) {
    let command = block.code;
    if (block.lang === 'js') {
      // A JavaScript block is a file the guide names in its first line (`// models.mjs`); the next block runs it.
      const file = block.code.match(/^\/\/ (\S+\.mjs)\n/)?.[1];
      assert.ok(file, `clients.md:${block.line}: a JavaScript block names its file in its first line`);
      writeFileSync(join(reader, file), block.code);
      continue;
    }
    assert.is(block.lang, 'sh', `clients.md:${block.line}`);
    const result = await runToEnd('bash', ['-c', `set -euo pipefail\n${command}`], {
      cwd: reader,
      env: {
        ...process.env,
        SCRIBE_BASE_URL: server!.base,
        SCRIBE_API_KEY: apiKey,
        SCRIBE_ADMIN_TOKEN: ADMIN_TOKEN,
        npm_config_loglevel: 'error',
      },
      timeoutMs: 300_000,
    });
    command = command.split('\n')[0]!;
    assert.is(result.code, 0, `clients.md:${block.line} (${command}) failed:\n${result.stdout}\n${result.stderr}`);
    if (block.output !== undefined) {
      const printed = result.stdout.trim(); // npm starts its report with an empty line
      assert.match(printed, outputPattern(block.output), `clients.md:${block.line} printed:\n${printed}`);
    }
    ran.push(command);
  }
  // The client came from the server's tarball, not from the repository's workspace.
  const installed = JSON.parse(readFileSync(join(reader, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
  };
  assert.is(installed.dependencies['scribe-client'], `${server!.base}/docs/packages/scribe-client.tgz`);
  assert.is(installed.dependencies['scribe-conformance'], `${server!.base}/docs/packages/scribe-conformance.tgz`);
  assert.ok(existsSync(join(reader, 'node_modules/scribe-client/dist/client/src/index.d.ts')), 'the .d.ts types');
  console.log(`clients.md: ${ran.length} shell blocks ran in ${reader}: ${ran.join(' | ')}`);
});

test('npm publish --dry-run passes for both packages', async () => {
  for (const folder of ['client', 'conformance']) {
    const { name, version } = manifest(folder);
    // Under the lock every pack of the workspaces takes: publish packs too (prepack builds dist/, postpack removes it).
    const result = await runToEnd(
      'flock',
      [packLock(root), 'npm', 'publish', '--dry-run', '--workspace', folder, '--loglevel=notice'],
      { cwd: root, env: { ...process.env, NO_COLOR: '1' }, timeoutMs: 180_000 },
    );
    assert.is(result.code, 0, `${name}: ${result.stdout}\n${result.stderr}`);
    assert.match(`${result.stdout}${result.stderr}`, `+ ${name}@${version}`);
    // Nothing npm would change or drop on a real publish (a bin path it cannot find, a field it fixes up); only the
    // login notice of a machine with no registry account is expected.
    const warnings = result.stderr
      .split('\n')
      .filter((line) => line.startsWith('npm warn') && !line.includes('requires you to be logged in'));
    assert.equal(warnings, [], `${name}: npm publish --dry-run warned`);
    console.log(
      `${name}@${version}: npm publish --dry-run passed (${result.stderr.match(/total files:\s+\d+/)?.[0] ?? '?'})`,
    );
  }
});

test.run();
