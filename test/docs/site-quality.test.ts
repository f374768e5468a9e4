// The whole docs site as a reader meets it, served by a real server at /docs/ and read in Debian Chromium
// (playwright-core): every link of every page resolves (hash routes of the reference opened cold in a new page
// included), no page scrolls sideways at 390 px or 1400 px, the dark colours apply with the system's setting and with
// the toggle, axe-core finds no serious or critical violation, the menu opens on a phone, one search finds guides and
// reference operations, and guides carry anchors, a table of contents, highlighted code with copy buttons and links
// to their operations. Screenshots (phone and desktop, light and dark) go to /tmp/shots.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startScribe, type ScribeProcess } from '../../server/src/test-support/scribe-process.ts';
import { launchChromium } from '../support/chromium.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const axeSource = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const shots = process.env.SCRIBE_DOCS_SHOTS ?? '/tmp/shots';

let server: ScribeProcess;
let browser: Browser;
let docs: string;
const pageErrors: string[] = [];

/** Every page of the site, relative to /docs/. */
function sitePages(): string[] {
  const guides = readdirSync(join(root, 'docs/site/guides'))
    .filter((f) => f.endsWith('.html'))
    .map((f) => `guides/${f}`);
  return ['index.html', 'changelog.html', 'playground.html', 'api.html', 'streaming.html', ...guides.sort()];
}

test.before(async () => {
  mkdirSync(shots, { recursive: true });
  const [started, launched, built] = await Promise.allSettled([
    startScribe('sqlite'),
    launchChromium(),
    promisify(execFile)(process.execPath, [join(root, 'scripts/build-docs.mjs')], { cwd: root }),
  ]);
  if (started.status === 'fulfilled') server = started.value;
  if (launched.status === 'fulfilled') browser = launched.value;
  for (const outcome of [started, launched, built]) if (outcome.status === 'rejected') throw outcome.reason;
  docs = `${server.base}/docs/`;
});

test.after(async () => {
  await browser?.close();
  await server?.stop();
});

async function open(context: BrowserContext, url: string): Promise<Page> {
  const page = await context.newPage();
  page.on('pageerror', (error) => pageErrors.push(`${url}: ${error.message}`));
  await page.goto(url, { waitUntil: 'networkidle' });
  return page;
}

/** Whether a cold-opened URL shows what its fragment names: an element with that id, or Redoc's section of a route. */
async function showsFragment(page: Page, fragment: string): Promise<boolean> {
  if (fragment.startsWith('/')) {
    // Redoc routes: the section of the route, or of one of the operations inside it, is rendered.
    return page
      .waitForFunction(
        (route) =>
          Array.from(document.querySelectorAll('[data-section-id]')).some((e) =>
            (e.getAttribute('data-section-id') ?? '').replace(/^\/?/, '/').startsWith(route),
          ),
        fragment,
        { timeout: 10_000 },
      )
      .then(
        () => true,
        () => false,
      );
  }
  return page.evaluate((id) => document.getElementById(decodeURIComponent(id)) !== null, fragment);
}

test('every link of every page resolves, hash routes of the reference opened cold in a new page included', async () => {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  const links = new Map<string, string>(); // absolute URL → the page it was first seen on
  let external = 0;
  for (const file of sitePages()) {
    const page = await open(context, `${docs}${file}`);
    const hrefs = await page.locator('a[href]').evaluateAll((as) => as.map((a) => (a as HTMLAnchorElement).href));
    for (const href of hrefs) {
      if (!href.startsWith(server.base)) {
        external += 1;
        continue;
      }
      if (!links.has(href)) links.set(href, file);
    }
    await page.close();
  }
  const broken: string[] = [];
  const bodies = new Map<string, { status: number; type: string; text: string }>();
  let cold = 0;
  for (const [href, from] of links) {
    const [address, fragment] = href.split('#') as [string, string | undefined];
    if (!bodies.has(address)) {
      const response = await fetch(address);
      const type = response.headers.get('content-type') ?? '';
      bodies.set(address, {
        status: response.status,
        type,
        text: type.startsWith('text/html') ? await response.text() : '',
      });
      if (!type.startsWith('text/html')) await response.body?.cancel();
    }
    const { status, type, text } = bodies.get(address)!;
    if (status !== 200 || !address.startsWith(docs)) {
      broken.push(`${from} → ${href}: ${status} ${type}`);
      continue;
    }
    if (!fragment || !type.startsWith('text/html')) continue;
    if (!fragment.startsWith('/')) {
      // An anchor inside a page of the site's own: the page as served carries the id.
      if (!text.includes(`id="${decodeURIComponent(fragment)}"`)) broken.push(`${from} → ${href}: no id ${fragment}`);
      continue;
    }
    // A route of a Redoc page: opened cold in a new page, the route's section is rendered.
    cold += 1;
    const page = await open(context, href);
    if (!(await showsFragment(page, fragment))) broken.push(`${from} → ${href}: #${fragment} shows nothing`);
    await page.close();
  }
  await context.close();
  console.log(
    `link check: ${links.size} distinct local links, ${cold} reference routes opened cold in a new page, ` +
      `${external} external (not followed, offline), ${broken.length} broken`,
  );
  assert.ok(links.size > 150, `only ${links.size} links found`);
  assert.equal(broken, []);
});

test('the reference links to guides and every guide links to its operations in the reference', async () => {
  const context = await browser.newContext();
  const api = await open(context, `${docs}api.html#/webhooks/createwebhook`);
  await api.waitForSelector('[data-section-id="/webhooks/createwebhook"], [data-section-id="webhooks/createwebhook"]');
  const guideLinks = await api.locator('a[href*="guides/"]').evaluateAll((as) => as.map((a) => a.getAttribute('href')));
  assert.ok(guideLinks.includes('guides/webhooks.html'), `the operation links its guide: ${guideLinks.join(' ')}`);
  // The guides that explain a tag of the contract (scripts/docs/guide-operation-links.mjs).
  for (const name of [
    'quickstart',
    'authentication',
    'transcription',
    'streaming',
    'webhooks',
    'billing',
    'openai-sdk',
    'configuration',
  ]) {
    const page = await open(context, `${docs}guides/${name}.html`);
    const count = await page.locator('.site-operations a[href*="api.html#/"]').count();
    assert.ok(count > 0, `${name} lists no operation`);
    await page.close();
  }
  await context.close();
});

test('no page scrolls sideways at 390 px or 1400 px, in light and in dark; dark colours apply; screenshots', async () => {
  const wide: string[] = [];
  const notDark: string[] = [];
  for (const colorScheme of ['light', 'dark'] as const)
    for (const [width, height, device] of [
      [390, 844, 'phone'],
      [1400, 900, 'desktop'],
    ] as const) {
      const context = await browser.newContext({ viewport: { width, height }, colorScheme });
      for (const file of sitePages()) {
        const page = await open(context, `${docs}${file}`);
        const [scrollWidth, innerWidth] = await page.evaluate(() => [
          document.scrollingElement!.scrollWidth,
          window.innerWidth,
        ]);
        if (scrollWidth > innerWidth)
          wide.push(`${file} at ${width} px (${colorScheme}): ${scrollWidth} > ${innerWidth}`);
        const background = await page.evaluate(() => {
          // The colour a reader sees behind the text: the first opaque background from the main content outwards.
          let element: Element | null = document.querySelector('.site-main, .api-content, main') ?? document.body;
          while (element) {
            const colour = getComputedStyle(element).backgroundColor;
            if (colour && !colour.endsWith(', 0)') && colour !== 'transparent') return colour;
            element = element.parentElement;
          }
          return 'rgb(255, 255, 255)';
        });
        const [r, g, b] = background.match(/\d+/g)!.map(Number) as [number, number, number];
        const dark = 0.2126 * r + 0.7152 * g + 0.0722 * b < 80;
        if (dark !== (colorScheme === 'dark')) notDark.push(`${file} ${colorScheme}: background ${background}`);
        if (
          ['index.html', 'guides/quickstart.html', 'playground.html', 'api.html', 'guides/webhooks.html'].includes(file)
        )
          await page.screenshot({ path: join(shots, `${file.replace(/\W+/g, '-')}-${device}-${colorScheme}.png`) });
        await page.close();
      }
      await context.close();
    }
  assert.equal(wide, [], 'pages wider than the window');
  assert.equal(notDark, [], 'colours not following the scheme');
});

test('at 390 px and 1400 px nothing is covered or cut: copy buttons, the search placeholder, the reference', async () => {
  const problems: string[] = [];
  for (const [width, height] of [
    [390, 844],
    [1400, 900],
  ] as const) {
    const context = await browser.newContext({ viewport: { width, height } });
    for (const file of ['guides/quickstart.html', 'guides/webhooks.html', 'api.html']) {
      const page = await open(context, `${docs}${file}`);
      // The copy button of every code block stays clear of the block's first line of code.
      const covered = await page.evaluate(() =>
        Array.from(document.querySelectorAll('.site-code')).flatMap((block, n) => {
          const button = block.querySelector('.site-copy')!.getBoundingClientRect();
          const walker = document.createTreeWalker(block.querySelector('code')!, NodeFilter.SHOW_TEXT);
          let text = walker.nextNode();
          while (text && !text.textContent!.trim()) text = walker.nextNode();
          if (!text) return [];
          const range = document.createRange();
          range.setStart(text, 0);
          range.setEnd(text, Math.min(text.textContent!.length, 1));
          const line = range.getBoundingClientRect();
          const overlaps = button.bottom > line.top && button.top < line.bottom;
          return overlaps
            ? [`block ${n}: button ${button.top}–${button.bottom}, first line ${line.top}–${line.bottom}`]
            : [];
        }),
      );
      for (const c of covered) problems.push(`${file} at ${width} px: ${c}`);
      // The search field shows its whole placeholder.
      const [placeholder, textWidth, room] = await page.evaluate(() => {
        const input = document.querySelector<HTMLInputElement>('.site-search input')!;
        const style = getComputedStyle(input);
        const context2d = document.createElement('canvas').getContext('2d')!;
        context2d.font = `${style.fontSize} ${style.fontFamily}`;
        const room = input.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
        return [input.placeholder, context2d.measureText(input.placeholder).width, room];
      });
      if (textWidth > room)
        problems.push(`${file} at ${width} px: the placeholder "${placeholder}" needs ${textWidth} px of ${room}`);
      await page.close();
    }
    // The reference: on a phone its floating menu button sits beside the text column, never over a line or link
    // (an operation's "Guide:" link included); the sync create description starts with the request.
    const page = await open(context, `${docs}api.html#tag/Transcriptions/operation/createSyncTranscription`);
    const guide = page.locator('.api-content strong', { hasText: 'Guide:' }).first();
    await guide.waitFor({ timeout: 20_000 });
    const { buttonLeft, textRight } = await page.evaluate(() => {
      const button = document.querySelector<HTMLElement>('button[data-testid=floating-button]');
      const shown = button && getComputedStyle(button).display !== 'none' && button.offsetWidth > 0;
      const rights = Array.from(document.querySelectorAll('.api-content p, .api-content li'))
        .map((e) => e.getBoundingClientRect())
        .filter((r) => r.width > 0)
        .map((r) => r.right);
      return { buttonLeft: shown ? button.getBoundingClientRect().left : Infinity, textRight: Math.max(...rights) };
    });
    if (width === 390 && buttonLeft === Infinity) problems.push('api.html at 390 px: no floating menu button');
    if (textRight > buttonLeft)
      problems.push(
        `api.html at ${width} px: text reaches ${textRight} px, under the menu button from ${buttonLeft} px`,
      );
    const description = page.locator('.api-content p', { hasText: 'as the multipart field' }).first();
    assert.match(await description.innerText(), /^Send a short recording as the multipart field file/);
    await page.close();
    await context.close();
  }
  assert.equal(problems, []);
});

test('the reference names the server as everything else does: http://127.0.0.1:8080', () => {
  for (const file of ['api.html', 'streaming.html']) {
    const html = readFileSync(join(root, 'docs/site', file), 'utf8');
    assert.not.ok(html.includes('localhost:8080'), `${file} names localhost:8080`);
    assert.ok(html.includes('127.0.0.1:8080'), `${file} names 127.0.0.1:8080`);
  }
});

test('the toggle switches to dark and back, and the choice holds on the next page, the reference included', async () => {
  const context = await browser.newContext({ colorScheme: 'light' });
  const page = await open(context, `${docs}guides/quickstart.html`);
  const isDark = () => page.evaluate(() => document.documentElement.classList.contains('dark'));
  assert.is(await isDark(), false);
  await page.click('.site-theme');
  assert.is(await isDark(), true);
  await page.goto(`${docs}api.html`, { waitUntil: 'networkidle' });
  assert.is(await isDark(), true, 'the reference follows the choice');
  await page.click('.site-theme');
  await page.goto(`${docs}index.html`, { waitUntil: 'networkidle' });
  assert.is(await isDark(), false);
  await context.close();
});

test('on a phone the menu is folded and opens with its button', async () => {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
  for (const file of ['index.html', 'guides/webhooks.html', 'playground.html']) {
    const page = await open(context, `${docs}${file}`);
    assert.is(await page.locator('#site-nav').isVisible(), false, `${file}: menu folded`);
    await page.click('.site-menu-button');
    assert.is(await page.locator('#site-nav').isVisible(), true, `${file}: menu open`);
    assert.is(await page.locator('.site-menu-button').getAttribute('aria-expanded'), 'true');
    await page.close();
  }
  await context.close();
});

test('axe-core finds no serious or critical violation on any page, light or dark', async () => {
  const found: string[] = [];
  let audited = 0;
  for (const colorScheme of ['light', 'dark'] as const) {
    // The pages' policy refuses injected inline scripts, as axe is added: the audit context sets it aside.
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 }, colorScheme, bypassCSP: true });
    for (const file of sitePages()) {
      const page = await open(context, `${docs}${file}`);
      // Redoc highlights its samples after the page is idle: the audit reads the page once that is done.
      await page.waitForTimeout(1000);
      await page.addScriptTag({ path: axeSource });
      const violations = await page.evaluate(async () => {
        const axe = (window as unknown as { axe: { run: (c: Document) => Promise<{ violations: unknown[] }> } }).axe;
        const result = await axe.run(document);
        return result.violations as { id: string; impact: string; nodes: { target: string[] }[] }[];
      });
      audited += 1;
      for (const v of violations.filter((v) => v.impact === 'serious' || v.impact === 'critical'))
        found.push(
          `${file} (${colorScheme}): ${v.id} ${v.impact} × ${v.nodes.length} e.g. ${v.nodes[0]?.target.join(' ')}`,
        );
      await page.close();
    }
    await context.close();
  }
  console.log(`axe-core: ${audited} page audits (light and dark), ${found.length} serious or critical violations`);
  assert.equal(found, []);
});

test('one search finds guide sections and reference operations, from a guide and from the reference', async () => {
  const context = await browser.newContext();
  for (const [file, query, expected] of [
    ['index.html', 'webhook signature', 'guides/webhooks.html'],
    ['guides/quickstart.html', 'createWebhook', 'api.html#/webhooks/createwebhook'],
    ['api.html', 'SCRIBE_URL_ALLOW_HOSTS', 'guides/'],
  ] as const) {
    const page = await open(context, `${docs}${file}`);
    await page.fill('.site-search input', query);
    await page.waitForSelector('.site-search-results:not([hidden]) a', { timeout: 10_000 });
    const results = await page
      .locator('.site-search-results a')
      .evaluateAll((as) => as.map((a) => (a as HTMLAnchorElement).href));
    assert.ok(
      results.some((r) => r.includes(expected)),
      `${file}: "${query}" finds ${expected}: ${results.join(' ')}`,
    );
    const target = results.find((r) => r.includes(expected))!;
    await page.goto(target, { waitUntil: 'networkidle' });
    const fragment = target.split('#')[1];
    if (fragment) assert.ok(await showsFragment(page, fragment), `${target} shows its place`);
    await page.close();
  }
  await context.close();
});

test('on a phone the search results fit the screen', async () => {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
  const page = await open(context, `${docs}guides/quickstart.html`);
  await page.fill('.site-search input', 'webhook secret');
  await page.waitForSelector('.site-search-results:not([hidden]) a', { timeout: 10_000 });
  const box = (await page.locator('.site-search-results').boundingBox())!;
  assert.ok(box.x >= 0 && box.x + box.width <= 390, `results from ${box.x} to ${box.x + box.width} px`);
  await context.close();
});

test('guides have anchored headings, a table of contents and highlighted code blocks with a copy button', async () => {
  const context = await browser.newContext({ permissions: ['clipboard-read', 'clipboard-write'] });
  const page = await open(context, `${docs}guides/webhooks.html`);
  const toc = await page.locator('.site-toc a').evaluateAll((as) => as.map((a) => a.getAttribute('href')!));
  const headings = await page.locator('main h2[id], main h3[id]').evaluateAll((hs) => hs.map((h) => `#${h.id}`));
  assert.ok(toc.length >= 4, 'table of contents');
  for (const href of toc) assert.ok(headings.includes(href), `${href} names a heading`);
  assert.is(await page.locator('main h2 a.anchor').count(), await page.locator('main h2').count());
  const blocks = await page.locator('.site-code').count();
  assert.ok(blocks > 0);
  assert.is(await page.locator('.site-code .site-copy').count(), blocks, 'a copy button on every block');
  assert.ok((await page.locator('.site-code .hljs-string, .site-code .hljs-keyword').count()) > 10, 'highlighted');
  await page.locator('.site-code .site-copy').first().click();
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  assert.is(copied, await page.locator('.site-code code').first().innerText());
  await context.close();
});

test('the changelog and the contract documents are on the site; the landing page says what each version versions', async () => {
  for (const file of ['openapi.yaml', 'openapi.json', 'asyncapi.yaml', 'asyncapi.json', 'CHANGELOG.md']) {
    const response = await fetch(`${docs}downloads/${file}`);
    assert.is(response.status, 200, file);
    assert.ok((await response.text()).length > 1000, file);
  }
  const health = (await (await fetch(`${server.base}/health`)).json()) as { version: string };
  const contract = (await (await fetch(`${docs}downloads/openapi.json`)).json()) as { info: { version: string } };
  const context = await browser.newContext();
  const page = await open(context, `${docs}index.html`);
  const versions = await page.locator('#versions + p + table').innerText();
  assert.ok(versions.includes(contract.info.version), 'the contract version');
  assert.ok(versions.includes(health.version), 'the version /health answers');
  assert.match(versions, /GET \/health/);
  await context.close();
});

test('no page threw an error', () => {
  assert.equal(pageErrors, []);
});

test.run();
