// The built docs site in a real browser (Debian Chromium via playwright-core): both pages render every operation of
// the HTTP document and every message and operation of the AsyncAPI document, and make no request to any host other
// than the local server that serves them.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { asyncapi, operations, resolve } from '../contract/documents.ts';
import { launchChromium } from '../support/chromium.ts';
import { guideFiles, readGuide } from '../support/guides.ts';
import { serveDirectory } from '../support/static-server.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
let browser: Browser;
let site: Awaited<ReturnType<typeof serveDirectory>>;
const requested: string[] = [];
const consoleErrors: string[] = [];
/** Screenshots of what a reader sees, kept after the run (ignored by git). */
const artifacts = join(root, 'test/artifacts');

test.before(async () => {
  execFileSync(process.execPath, [`${root}scripts/build-docs.mjs`], { cwd: root, stdio: 'pipe' });
  site = await serveDirectory(`${root}docs/site`);
  browser = await launchChromium();
});

test.after(async () => {
  await browser?.close();
  await site?.close();
});

async function open(file: string): Promise<Page> {
  const page = await browser.newPage();
  page.on('request', (request) => requested.push(request.url()));
  page.on('console', (message) => message.type() === 'error' && consoleErrors.push(`${file}: ${message.text()}`));
  page.on('pageerror', (error) => consoleErrors.push(`${file}: ${error.message}`));
  await page.goto(`${site.url}/${file}`, { waitUntil: 'networkidle' });
  return page;
}

const slug = (text: string) =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

/** Navigates the single-page site to a route and waits until `text` is rendered; returns the page's text. */
async function visit(page: Page, file: string, route: string, text: string): Promise<string> {
  await page.goto(`${site.url}/${file}#${route}`, { waitUntil: 'networkidle' });
  await page.waitForFunction((t) => document.body.innerText.includes(t), text, { timeout: 10_000 }).catch(() => {});
  return page.evaluate(() => document.body.innerText);
}

test('the index page links every guide, both reference pages, the changelog and the playground', async () => {
  const page = await open('index.html');
  const links = await page.locator('main a').evaluateAll((as) => as.map((a) => a.getAttribute('href')));
  const guides = guideFiles().map((file) => `guides/${file.replace(/\.md$/, '.html')}`);
  for (const href of ['api.html', 'streaming.html', 'changelog.html', 'playground.html', ...guides])
    assert.ok(links.includes(href), `the index links ${href}`);
  await page.close();
});

test('every guide renders with its title, the shared menu and working local links; a screenshot is kept', async () => {
  mkdirSync(artifacts, { recursive: true });
  for (const file of guideFiles()) {
    const guide = readGuide(file);
    const page = await open(`guides/${file.replace(/\.md$/, '.html')}`);
    assert.is(await page.locator('main h1').first().innerText(), guide.title, file);
    const menu = await page.locator('nav a').evaluateAll((as) => as.map((a) => a.getAttribute('href')));
    assert.ok(menu.length >= guideFiles().length + 3, `${file}: the menu has ${menu.length} links`);
    assert.is(await page.locator('nav a[aria-current]').count(), 1, `${file}: the menu marks the current page`);
    // A code block and, after it, the `output` block showing what it prints.
    const rendered = guide.blocks.length + guide.blocks.filter((block) => block.output !== undefined).length;
    assert.is(await page.locator('main pre code').count(), rendered, `${file}: code blocks`);
    const hrefs = await page.locator('a').evaluateAll((as) => as.map((a) => (a as HTMLAnchorElement).href));
    for (const href of hrefs.filter((h) => h.startsWith(site.url))) {
      const response = await fetch(href.split('#')[0]!);
      assert.is(response.status, 200, `${file} links ${href}`);
    }
    if (file === 'quickstart.md')
      await page.screenshot({ path: join(artifacts, 'guide-quickstart.png'), fullPage: true });
    await page.close();
  }
});

test('the HTTP page has a menu entry for every operationId and renders each operation', async () => {
  const page = await open('api.html');
  const missing: string[] = [];
  for (const op of operations) {
    const route = `/${slug(op.tags![0]!)}/${op.operationId.toLowerCase()}`;
    const text = await visit(page, 'api.html', route, op.summary as string);
    const sections = await page.evaluate(() =>
      Array.from(document.querySelectorAll('[data-section-id]')).map((e) => e.getAttribute('data-section-id')),
    );
    const rendered =
      sections.includes(route) && text.includes(op.summary as string) && text.includes(op.path.split('{')[0]!);
    if (!rendered) missing.push(op.operationId);
  }
  assert.equal(missing, [], 'operations not rendered');
  await page.close();
});

test('the streaming page renders every AsyncAPI operation and every message', async () => {
  const page = await open('streaming.html');
  const missing: string[] = [];
  let checked = 0;
  for (const [key, channel] of Object.entries(asyncapi.channels)) {
    const route = `/channels/${key.toLowerCase()}`;
    const operationsOfChannel = Object.entries(asyncapi.operations).filter(
      ([, op]) => resolve<Record<string, unknown>>(asyncapi, op.channel).address === channel.address,
    );
    checked += operationsOfChannel.length;
    const text = await visit(page, 'streaming.html', route, String(channel.title ?? key));
    const sections = await page.evaluate(() =>
      Array.from(document.querySelectorAll('[data-section-id]')).map((e) => e.getAttribute('data-section-id')),
    );
    for (const [id, op] of operationsOfChannel) {
      const entry = `${route}/operations/${id.toLowerCase()}`;
      if (!sections.includes(entry) && !sections.includes(entry.slice(1))) missing.push(`operation ${id}`);
      if (!text.includes(op.summary as string)) missing.push(`operation summary ${id}`);
      for (const ref of op.messages as unknown[]) {
        const message = resolve<Record<string, unknown>>(asyncapi, ref);
        const opened = await visit(page, 'streaming.html', entry, String(message.title));
        if (!opened.includes(String(message.title))) missing.push(`message ${String(message.name)}`);
      }
    }
  }
  assert.is(checked, Object.keys(asyncapi.operations).length, 'every operation belongs to a channel that was opened');
  assert.ok(checked >= 12);
  assert.equal(missing, [], 'not rendered');
  await page.close();
});

test('no page requested anything but the local server (checked last, over every page opened)', () => {
  assert.ok(requested.length > 5, 'the pages were loaded');
  const foreign = requested.filter((url) => {
    if (url.startsWith('data:') || url.startsWith('blob:')) return false;
    return new URL(url).hostname !== '127.0.0.1';
  });
  assert.equal(foreign, []);
  assert.equal(consoleErrors, [], 'console errors');
});

test.run();
