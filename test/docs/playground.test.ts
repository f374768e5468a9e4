// The docs site as the reference server serves it at /docs/, and the playground page driven in a real browser
// (Debian Chromium via playwright-core) against a real server process on SQLite: pages load without console errors
// or requests to another host; an uploaded recording is transcribed; a fake microphone fed from a real recording
// streams live; a bad key, a refused file and a lost connection show the contract's error. Screenshots are kept in
// test/artifacts/.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile, execFileSync } from 'node:child_process';
import { get } from 'node:http';
import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { ffmpegPath } from '../../server/src/media/ffmpeg.ts';
import { GOFORWARD_RAW, goforward, textAsWav } from '../../server/src/test-support/audio.ts';
import {
  chatAnswerOn,
  createAccountOn,
  startScribe,
  type ScribeProcess,
} from '../../server/src/test-support/scribe-process.ts';
import { tinyModelPath } from '../../server/src/chat/tiny-model-fixture.ts';
import { launchChromium } from '../support/chromium.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const artifacts = join(root, 'test/artifacts');
const EXPECTED = 'go forward ten meters';

let server: ScribeProcess;
/** The second server, with the tiny chat model: started in `before` beside the first, used by the chat test. */
let chatServer: Promise<ScribeProcess> | undefined;
let browser: Browser;
let apiKey: string;
const requested: string[] = [];
const consoleErrors: string[] = [];

/**
 * The fake microphone's input: the real recording with silence around it (the stream engine ends an utterance on
 * silence), as the 16-bit PCM WAV Chromium's fake capture device reads, played once.
 */
function microphoneWav(): string {
  const path = join(mkdtempSync(join(tmpdir(), 'scribe-mic-')), 'goforward-padded.wav');
  execFileSync(ffmpegPath, [
    ...['-hide_banner', '-loglevel', 'error', '-y'],
    ...['-f', 's16le', '-ar', '16000', '-ac', '1', '-i', GOFORWARD_RAW],
    ...['-af', 'adelay=1000,apad', '-t', '7', '-ar', '48000', '-ac', '1', '-c:a', 'pcm_s16le', path],
  ]);
  return path;
}

test.before(async () => {
  mkdirSync(artifacts, { recursive: true });
  // The site build, the two servers and the browser start side by side (the servers serve /docs/ per request, so a
  // site built after they start is the one they serve).
  chatServer = tinyModelPath().then((model) => startScribe('sqlite', { SCRIBE_MINI_MODEL: model }));
  chatServer.catch(() => undefined); // a failed start fails the chat test that awaits it
  const [started, launched, site] = await Promise.allSettled([
    startScribe('sqlite'),
    launchChromium([
      '--autoplay-policy=no-user-gesture-required',
      '--use-fake-ui-for-media-stream',
      '--use-fake-device-for-media-stream',
      `--use-file-for-fake-audio-capture=${microphoneWav()}%noloop`,
    ]),
    promisify(execFile)(process.execPath, [join(root, 'scripts/build-docs.mjs')], { cwd: root }),
  ]);
  // Whatever started is kept for `after` to stop, then the first failure is thrown.
  if (started.status === 'fulfilled') server = started.value;
  if (launched.status === 'fulfilled') browser = launched.value;
  for (const outcome of [started, launched, site]) if (outcome.status === 'rejected') throw outcome.reason;
  apiKey = (await createAccountOn(server.base, 1000)).apiKey;
});

test.after(async () => {
  await browser?.close();
  await server?.stop();
  await (await chatServer?.catch(() => undefined))?.stop();
});

async function newPage(context?: BrowserContext): Promise<Page> {
  const page = await (context ?? (await browser.newContext())).newPage();
  page.on('request', (request) => requested.push(request.url()));
  page.on('console', (message) => message.type() === 'error' && consoleErrors.push(`${page.url()}: ${message.text()}`));
  page.on('pageerror', (error) => consoleErrors.push(`${page.url()}: ${error.message}`));
  return page;
}

function conditionalStatus(url: string, etag: string): Promise<number | undefined> {
  return new Promise((resolve, reject) =>
    get(url, { headers: { 'If-None-Match': etag } }, (response) => {
      response.resume();
      resolve(response.statusCode);
    }).on('error', reject),
  );
}

/** The playground with the key pasted and accepted (or refused). */
async function playground(key: string): Promise<Page> {
  const page = await newPage();
  await page.goto(`${server.base}/docs/playground.html`, { waitUntil: 'networkidle' });
  await page.fill('#api-key', key);
  await page.click('#key-save');
  return page;
}

test('the server serves the built site at /docs/ with content types, cache headers and no way out of it', async () => {
  const redirect = await fetch(`${server.base}/docs`, { redirect: 'manual' });
  assert.is(redirect.status, 301);
  assert.is(redirect.headers.get('location'), '/docs/');

  const index = await fetch(`${server.base}/docs/`);
  assert.is(index.status, 200);
  assert.is(index.headers.get('content-type'), 'text/html; charset=utf-8');
  assert.is(index.headers.get('cache-control'), 'no-cache');
  assert.match(index.headers.get('content-security-policy') ?? '', "connect-src 'self'");
  assert.ok(index.headers.get('x-request-id'), 'the request id middleware still runs');
  const html = await index.text();
  assert.is(html, readFileSync(join(root, 'docs/site/index.html'), 'utf8'));
  assert.match(html, 'href="playground.html"');

  const script = await fetch(`${server.base}/docs/playground.js`);
  assert.is(script.status, 200);
  assert.is(script.headers.get('content-type'), 'text/javascript; charset=utf-8');
  assert.is(script.headers.get('cache-control'), 'public, max-age=300');
  const etag = script.headers.get('etag');
  assert.ok(etag);
  // fetch() adds `Cache-Control: no-cache` to a conditional request (as the Fetch standard says), which rightly
  // defeats the 304: the revalidation a browser cache makes is asked with node:http.
  assert.is(await conditionalStatus(`${server.base}/docs/playground.js`, etag), 304);
  assert.is(await conditionalStatus(`${server.base}/docs/playground.js`, 'W/"other"'), 200);

  const head = await fetch(`${server.base}/docs/api.html`, { method: 'HEAD' });
  assert.is(head.status, 200);
  assert.is(Number(head.headers.get('content-length')), readFileSync(join(root, 'docs/site/api.html')).length);

  // No listing of a folder, a folder's address gets its slash, and nothing outside docs/site/ is reachable.
  const folder = await fetch(`${server.base}/docs/guides`, { redirect: 'manual' });
  assert.is(folder.status, 301);
  assert.is(folder.headers.get('location'), '/docs/guides/');
  const listing = await fetch(`${server.base}/docs/guides/`);
  assert.is(listing.status, 404);
  assert.not.match(await listing.text(), 'quickstart.html');
  for (const path of [
    '/docs/..%2f..%2fpackage.json',
    '/docs/%2e%2e/%2e%2e/package.json',
    '/docs/guides/..%5c..%5cREADME.md',
    '/docs/%00',
    '/docs/%E0%A4%A',
  ]) {
    const response = await fetch(`${server.base}${path}`);
    assert.is(response.status, 404, path);
    assert.not.match(await response.text(), '"name"', path);
  }
  const post = await fetch(`${server.base}/docs/index.html`, { method: 'POST' });
  assert.is(post.status, 405);
  assert.is(post.headers.get('allow'), 'GET, HEAD');

  // The API's own routing is untouched: an unknown API path is still the contract's 404.
  const unknown = await fetch(`${server.base}/v3/nothing-here`);
  assert.is(unknown.status, 404);
  assert.is(((await unknown.json()) as { error: { code: string } }).error.code, 'not_found');
});

test('every page of the served site loads with no console error and no request to another host', async () => {
  const pages = ['', 'index.html', 'api.html', 'streaming.html', 'playground.html', 'guides/quickstart.html'];
  for (const path of pages) {
    const page = await newPage();
    const response = await page.goto(`${server.base}/docs/${path}`, { waitUntil: 'networkidle' });
    assert.is(response?.status(), 200, path);
    // Redoc's pages have their own menu; the site's pages share one that links the playground.
    if (!['api.html', 'streaming.html'].includes(path))
      assert.is(
        await page.locator('nav a[href$="playground.html"]').count(),
        1,
        `${path}: the menu links the playground`,
      );
    await page.context().close();
  }
});

test('no page allows inline scripts but its own: one injected into the playground does not run', async () => {
  for (const path of ['index.html', 'api.html', 'streaming.html', 'playground.html', 'guides/quickstart.html']) {
    const response = await fetch(`${server.base}/docs/${path}`);
    const scriptSrc = (response.headers.get('content-security-policy') ?? '')
      .split(';')
      .map((directive) => directive.trim())
      .find((directive) => directive.startsWith('script-src '));
    assert.ok(scriptSrc, `${path}: script-src is stated`);
    assert.not.match(scriptSrc!, 'unsafe-inline', path);
  }
  // Its own page context without the console listeners: the refusal is logged as an error, which is the point here.
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${server.base}/docs/playground.html`, { waitUntil: 'networkidle' });
  // The page's own inline script (the colour mode) ran; an injected one is refused with a CSP violation.
  assert.ok(
    await page.evaluate(() => ['light', 'dark'].some((mode) => document.documentElement.classList.contains(mode))),
    'the colour mode script of the page ran',
  );
  const outcome = await page.evaluate(
    () =>
      new Promise<{ ran: boolean; violated: string }>((resolve) => {
        document.addEventListener('securitypolicyviolation', (event) =>
          resolve({ ran: 'injected' in window, violated: event.violatedDirective }),
        );
        const script = document.createElement('script');
        script.textContent = 'window.injected = sessionStorage.length';
        document.head.append(script);
        setTimeout(() => resolve({ ran: 'injected' in window, violated: '' }), 2000);
      }),
  );
  assert.equal(outcome, { ran: false, violated: 'script-src-elem' });
  await context.close();
});

test('before a key the language menu says where its languages come from; with a key it offers the server ones', async () => {
  for (const [width, height] of [
    [390, 844],
    [1400, 900],
  ] as const) {
    const page = await newPage(await browser.newContext({ viewport: { width, height } }));
    await page.goto(`${server.base}/docs/playground.html`, { waitUntil: 'networkidle' });
    const before = page.locator('#language');
    assert.is(await before.isDisabled(), true, `${width} px: disabled until a key is accepted`);
    assert.match(await before.locator('option').first().innerText(), /once a key is accepted/);
    const box = (await before.boundingBox())!;
    assert.ok(box.width > 60 && box.x + box.width <= width, `${width} px: the menu shows its text (${box.width} px)`);
    await page.fill('#api-key', apiKey);
    await page.click('#key-save');
    await page.locator('#key-status.ok').waitFor();
    assert.is(await before.isDisabled(), false);
    // The reference server's engine lists English only: the menu offers it, chosen, as the CLI would send it.
    assert.equal(await before.locator('option').allInnerTexts(), ['en']);
    assert.is(await before.inputValue(), 'en');
    await page.context().close();
  }
});

test('a bad key shows the 401 message of the contract', async () => {
  const refused = await fetch(`${server.base}/v3/models`, { headers: { Authorization: 'Bearer sk_not_a_key' } });
  const { error } = (await refused.json()) as { error: { code: string; message: string } };
  assert.is(refused.status, 401);
  const page = await playground('sk_not_a_key');
  await page.locator('#key-error').waitFor({ state: 'visible' });
  assert.is(await page.locator('#key-error').innerText(), `${error.code}: ${error.message}`);
  await page.screenshot({ path: join(artifacts, 'playground-bad-key.png'), fullPage: true });
  await page.context().close();
});

test('an uploaded recording is transcribed with word times and subtitles; chat says no model is configured', async () => {
  const page = await playground(apiKey);
  await page.locator('#key-status.ok').waitFor();
  assert.is(await page.evaluate(() => sessionStorage.getItem('scribe.playground.apiKey')), apiKey);
  await page.locator('#chat-unavailable').waitFor({ state: 'visible' });
  assert.match(await page.locator('#chat-unavailable').innerText(), 'No chat model is configured');
  assert.ok(await page.locator('#chat-form').isHidden());

  await page.setInputFiles('#file-input', goforward('wav'));
  await page.click('#file-transcribe');
  await page.locator('#task-result').waitFor({ state: 'visible', timeout: 60_000 });
  assert.is(await page.locator('#transcript').innerText(), EXPECTED);
  assert.is(await page.locator('#task-mode').innerText(), 'sync task:');
  assert.match(await page.locator('#task-status').innerText(), 'completed · 100 %');
  const words = await page
    .locator('#words tbody tr')
    .evaluateAll((rows) => rows.map((row) => Array.from(row.querySelectorAll('td')).map((td) => td.textContent)));
  assert.equal(
    words.map(([word]) => word),
    EXPECTED.split(' '),
  );
  for (const [, start, end] of words) assert.ok(Number(start) < Number(end), `${start} < ${end}`);

  const download = page.waitForEvent('download');
  await page.click('#download-srt');
  const srt = readFileSync((await (await download).path())!, 'utf8');
  assert.match(srt, /^1\n00:00:00,\d{3} --> 00:00:0\d,\d{3}\n/);
  assert.match(srt, EXPECTED);
  await page.screenshot({ path: join(artifacts, 'playground-transcribed.png'), fullPage: true });
  await page.context().close();
});

test('a refused file and a lost connection show what went wrong', async () => {
  const page = await playground(apiKey);
  await page.locator('#key-status.ok').waitFor();
  await page.setInputFiles('#file-input', textAsWav());
  await page.click('#file-transcribe');
  await page.locator('#file-error').waitFor({ state: 'visible', timeout: 30_000 });
  const refused = await page.locator('#file-error').innerText();
  assert.match(refused, /^unsupported_format: \S/);

  await page.context().setOffline(true);
  await page.setInputFiles('#file-input', goforward('wav'));
  await page.click('#file-transcribe');
  // The box is cleared when the new attempt starts; wait for the next message.
  await page.waitForFunction(
    (before) => !['', before].includes(document.getElementById('file-error')?.textContent ?? ''),
    refused,
  );
  const lost = await page.locator('#file-error').innerText();
  assert.match(lost, /^The server did not answer \(.+\)\.$/, lost);
  await page.context().setOffline(false);
  await page.context().close();
});

test('a recording from the fake microphone is uploaded and transcribed', async () => {
  const page = await playground(apiKey);
  await page.locator('#key-status.ok').waitFor();
  await page.click('#record-start');
  await page.locator('#task-status', { hasText: 'Recording' }).waitFor();
  // The fake device plays the recording once (1 s of silence, the words, silence).
  await page.waitForTimeout(4500);
  await page.click('#record-stop');
  await page.locator('#task-result').waitFor({ state: 'visible', timeout: 60_000 });
  assert.ok(await page.locator('#file-error').isHidden(), await page.locator('#file-error').innerText());
  // The recording goes through the browser's Opus encoder, which costs the recogniser some accuracy ("ten years"
  // happens): three of the four words are asked for, in order.
  const heard = (await page.locator('#transcript').innerText()).split(' ');
  const expected = EXPECTED.split(' ');
  assert.is(heard.length, expected.length, heard.join(' '));
  assert.ok(heard.filter((word, i) => word === expected[i]).length >= 3, heard.join(' '));
  assert.is(await page.locator('#task-mode').innerText(), 'sync task:');
  await page.context().close();
});

test('live streaming from a fake microphone fed by a real recording shows the final words', async () => {
  const page = await playground(apiKey);
  await page.locator('#key-status.ok').waitFor();
  await page.click('#live-start');
  await page.waitForFunction(
    (expected) => document.getElementById('live-finals')?.textContent?.includes(expected),
    EXPECTED,
    { timeout: 30_000 },
  );
  await page.screenshot({ path: join(artifacts, 'playground-live.png'), fullPage: true });
  await page.click('#live-stop');
  await page.locator('#live-status', { hasText: 'Session completed' }).waitFor({ timeout: 15_000 });
  assert.ok(await page.locator('#live-error').isHidden(), await page.locator('#live-error').innerText());
  const finals = await page.locator('#live-finals li').evaluateAll((items) => items.map((li) => li.dataset.text));
  assert.ok(finals.includes(EXPECTED), JSON.stringify(finals));
  await page.context().close();
});

test('with a chat model configured, the answer streams in token by token', async () => {
  // The tests' tiny GGUF (random weights, a real tokenizer): the answer's words mean nothing, its streaming is real.
  const chat = await chatServer!;
  const key = (await createAccountOn(chat.base, 1000)).apiKey;
  const page = await newPage();
  await page.goto(`${chat.base}/docs/playground.html`, { waitUntil: 'networkidle' });
  await page.fill('#api-key', key);
  await page.click('#key-save');
  await page.locator('#chat-form').waitFor({ state: 'visible' });
  assert.ok(await page.locator('#chat-unavailable').isHidden());
  assert.equal(await page.locator('#chat-model option').evaluateAll((os) => os.map((o) => o.textContent)), [
    'service-mini',
  ]);
  // Every length the answer passes through: more than one step means the tokens were shown as they came.
  await page.evaluate(() => {
    const answer = document.getElementById('chat-answer')!;
    const lengths: number[] = [];
    (window as unknown as { lengths: number[] }).lengths = lengths;
    new MutationObserver(() => lengths.push(answer.textContent!.length)).observe(answer, { childList: true });
  });
  // Temperature 0: the model's likeliest answer, the same one the server gives to the request answered in one piece.
  await page.fill('#chat-max-tokens', '24');
  await page.fill('#chat-temperature', '0');
  await page.click('#chat-send');
  await page.waitForFunction(() => !(document.getElementById('chat-send') as HTMLButtonElement).disabled, null, {
    timeout: 60_000,
  });
  assert.ok(await page.locator('#chat-error').isHidden(), await page.locator('#chat-error').innerText());
  const lengths = await page.evaluate(() => (window as unknown as { lengths: number[] }).lengths);
  assert.ok(lengths.length > 1, `answer updates: ${JSON.stringify(lengths)}`);
  const expected = await chatAnswerOn(chat.base, key, {
    model: 'service-mini',
    messages: [{ role: 'user', content: await page.locator('#chat-prompt').inputValue() }],
    max_tokens: 24,
    temperature: 0,
  });
  assert.ok(expected.length > 1, 'the tiny model answers the prompt with more than one character');
  assert.is(await page.locator('#chat-answer').textContent(), expected);
  await page.screenshot({ path: join(artifacts, 'playground-chat.png'), fullPage: true });
  await page.context().close();
});

test('no page requested anything but the server, and no console error (checked last, over every page)', () => {
  assert.ok(requested.length > 10, 'the pages were loaded');
  const foreign = requested.filter((url) => !/^(data|blob):/.test(url) && new URL(url).hostname !== '127.0.0.1');
  assert.equal(foreign, []);
  // The refused file and the offline attempt are answered errors the page shows; the browser logs them too.
  const unexpected = consoleErrors.filter(
    (line) =>
      !/Failed to load resource: the server responded with a status of (400|401)|ERR_INTERNET_DISCONNECTED/.test(line),
  );
  assert.equal(unexpected, []);
});

test.run();
