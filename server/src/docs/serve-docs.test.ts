// The docs middleware in a real Koa server over a real folder: the page shown before the site is built, a build
// made while the server runs, files and their types, folders without listing, and paths that try to leave the folder.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Koa from 'koa';
import { serveDocs } from './serve-docs.ts';

const parent = mkdtempSync(join(tmpdir(), 'scribe-docs-'));
const site = join(parent, 'site');
// A file beside the site that no request may reach.
writeFileSync(join(parent, 'secret.txt'), 'not for the web');
let server: Server;
let base: string;

test.before(async () => {
  const koa = new Koa();
  koa.use(serveDocs({ dir: site }));
  koa.use((ctx) => {
    ctx.status = 418;
    ctx.body = 'the API';
  });
  server = koa.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

test.after(() => new Promise<void>((resolve) => server.close(() => resolve())));

test('before the site is built, /docs/ says how to build it', async () => {
  const response = await fetch(`${base}/docs/`);
  assert.is(response.status, 404);
  assert.is(response.headers.get('content-type'), 'text/html; charset=utf-8');
  assert.match(await response.text(), 'npm run docs');
});

test('other paths go on to the API', async () => {
  for (const path of ['/v3/models', '/docsx', '/doc']) {
    const response = await fetch(`${base}${path}`);
    assert.is(response.status, 418, path);
  }
});

test('a site built while the server runs is served, with its types and no listing', async () => {
  mkdirSync(join(site, 'guides'), { recursive: true });
  writeFileSync(join(site, 'index.html'), '<h1>Docs</h1>');
  writeFileSync(join(site, 'app.js'), 'console.log(1)');
  writeFileSync(join(site, 'guides', 'a b.html'), '<h1>A B</h1>');
  const index = await fetch(`${base}/docs/`);
  assert.is(index.status, 200);
  assert.is(await index.text(), '<h1>Docs</h1>');
  const script = await fetch(`${base}/docs/app.js`);
  assert.is(script.headers.get('content-type'), 'text/javascript; charset=utf-8');
  assert.is(script.headers.get('x-content-type-options'), 'nosniff');
  assert.is(await (await fetch(`${base}/docs/guides/a%20b.html`)).text(), '<h1>A B</h1>');
  assert.is((await fetch(`${base}/docs/guides/`)).status, 404);
  assert.is((await fetch(`${base}/docs/missing.html`)).status, 404);
});

test("a page's policy allows its own inline scripts by hash, never 'unsafe-inline', and follows a rebuild", async () => {
  const sha = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;
  const scriptSrc = async (path: string) =>
    ((await fetch(`${base}${path}`)).headers.get('content-security-policy') ?? '')
      .split('; ')
      .find((directive) => directive.startsWith('script-src '));
  const own = 'document.documentElement.classList.add("dark")';
  writeFileSync(
    join(site, 'page.html'),
    `<head><script>${own}</script><script src="app.js"></script><script type="module">import "./app.js";</script></head>`,
  );
  assert.is(await scriptSrc('/docs/page.html'), `script-src 'self' ${sha(own)} ${sha('import "./app.js";')} blob:`);
  assert.is(await scriptSrc('/docs/guides/a%20b.html'), "script-src 'self' blob:");
  assert.is(await scriptSrc('/docs/missing.html'), "script-src 'self' blob:");
  // A rebuilt page (another size) gets the hashes of its new scripts, not the cached ones.
  writeFileSync(join(site, 'page.html'), '<script>let rebuilt = 1;</script>');
  assert.is(await scriptSrc('/docs/page.html'), `script-src 'self' ${sha('let rebuilt = 1;')} blob:`);
});

test('no path reaches a file outside the site', async () => {
  for (const path of [
    '/docs/../secret.txt',
    '/docs/..%2fsecret.txt',
    '/docs/%2e%2e/secret.txt',
    '/docs/guides/..%2f..%2fsecret.txt',
    '/docs/..%5csecret.txt',
    '/docs/%2e%2e%2fsecret.txt',
  ]) {
    const response = await fetch(`${base}${path}`);
    const text = await response.text();
    assert.not.match(text, 'not for the web', path);
  }
});

test.run();
