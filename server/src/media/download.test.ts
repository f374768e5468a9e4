// downloadToFile against a real local HTTP server: a plain download, redirects (up to five, then refused), every
// hop through the guard (a redirect to the metadata address, to a private address or to ftp: is refused), the
// connection pinned to the address the guard approved, HTTP errors, the size limit (declared and streamed), the
// deadline, cancellation and connection failures; no failure leaves a file behind.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createAddressGuard, type AddressGuard } from './address-guard.ts';
import { DownloadError, downloadToFile, type DownloadFailure, type DownloadOptions } from './download.ts';

const test = suite('download');
const FILE = randomBytes(200 * 1024);
const MAX = 1024 * 1024;
const guard = createAddressGuard(['127.0.0.1']);
let server: Server;
let port = 0;
let base = '';
let dir = '';
const seen: { url: string; host: string | undefined }[] = [];

test.before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'scribe-download-'));
  server = createServer((req, res) => {
    const url = req.url ?? '/';
    seen.push({ url, host: req.headers.host });
    const redirect = (location: string, status = 302) => res.writeHead(status, { location }).end('moved');
    const chain = /^\/redirect\/(\d+)$/.exec(url);
    if (url === '/file') res.writeHead(200, { 'content-type': 'audio/wav' }).end(FILE);
    else if (chain && Number(chain[1]) > 0) redirect(`/redirect/${Number(chain[1]) - 1}`, 307);
    else if (chain) res.end(FILE);
    else if (url === '/relative') redirect('file', 301);
    else if (url === '/to-metadata') redirect('http://169.254.169.254/latest/meta-data/');
    else if (url === '/to-private') redirect('http://10.0.0.1/file');
    else if (url === '/to-ftp') redirect(`ftp://127.0.0.1:${port}/file`);
    else if (url === '/no-location') res.writeHead(302).end();
    else if (url === '/declared-big')
      res.writeHead(200, { 'content-length': String(2 * MAX) }).end(Buffer.alloc(2 * MAX));
    else if (url === '/streamed-big') {
      res.writeHead(200, { 'content-type': 'audio/mpeg' });
      let sent = 0;
      const more = () => {
        while (sent < 4 * MAX) {
          sent += 64 * 1024;
          if (!res.write(Buffer.alloc(64 * 1024))) return void res.once('drain', more);
        }
        res.end();
      };
      more();
    } else if (url === '/hang') {
      // Never answers.
    } else if (url === '/trickle') {
      res.writeHead(200, { 'content-length': '1000' });
      res.write('a little');
    } else res.writeHead(404).end('not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
});

test.after(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

let counter = 0;
const dest = () => join(dir, `download-${(counter += 1)}.bin`);
const options = (more: Partial<DownloadOptions> = {}): DownloadOptions => ({
  guard,
  maxBytes: MAX,
  timeoutMs: 5000,
  ...more,
});

async function failure(url: string, more: Partial<DownloadOptions> = {}): Promise<DownloadError> {
  const path = dest();
  try {
    await downloadToFile(url, path, options(more));
  } catch (error) {
    if (!(error instanceof DownloadError)) throw error;
    assert.not.ok(existsSync(path), 'no file is left behind');
    return error;
  }
  assert.unreachable(`${url} downloaded`);
  throw new Error('unreachable');
}

async function expectFailure(url: string, reason: DownloadFailure, more: Partial<DownloadOptions> = {}) {
  const error = await failure(url, more);
  assert.is(error.reason, reason, error.message);
  return error;
}

test('downloads from an allowed local server', async () => {
  const path = dest();
  const result = await downloadToFile(`${base}/file`, path, options());
  assert.equal(result, { size: FILE.length, contentType: 'audio/wav', finalUrl: `${base}/file` });
  assert.ok(readFileSync(path).equals(FILE));
});

test('follows up to five redirects (relative ones too); the sixth is too_many_redirects', async () => {
  const path = dest();
  const result = await downloadToFile(`${base}/redirect/5`, path, options());
  assert.is(result.finalUrl, `${base}/redirect/0`);
  assert.ok(readFileSync(path).equals(FILE));
  const relative = await downloadToFile(`${base}/relative`, dest(), options());
  assert.is(relative.finalUrl, `${base}/file`);

  const error = await expectFailure(`${base}/redirect/6`, 'too_many_redirects');
  assert.is(error.message, 'More than 5 redirects.');
  await expectFailure(`${base}/redirect/2`, 'too_many_redirects', { maxRedirects: 1 });
});

test('a redirect to the metadata address, a private address or ftp: is refused at that hop', async () => {
  const metadata = await expectFailure(`${base}/to-metadata`, 'refused');
  assert.match(metadata.message, 'The host 169.254.169.254 is not allowed');
  assert.is(metadata.url, 'http://169.254.169.254/latest/meta-data/');
  const priv = await expectFailure(`${base}/to-private`, 'refused');
  assert.match(priv.message, 'is not allowed');
  const ftp = await expectFailure(`${base}/to-ftp`, 'refused');
  assert.match(ftp.message, 'Only http and https');
});

test('http://10.0.0.1/ is refused even with 127.0.0.1 allowed; ftp: and nonsense are refused', async () => {
  const started = Date.now();
  await expectFailure('http://10.0.0.1/file.mp3', 'refused');
  assert.ok(Date.now() - started < 1000, 'refused before any connection attempt');
  await expectFailure(`ftp://127.0.0.1:${port}/file`, 'refused');
  await expectFailure('not a url', 'refused');
});

test('localhost by name is refused when neither it nor its address is allowed', async () => {
  const error = await expectFailure(`http://localhost:${port}/file`, 'refused', { guard: createAddressGuard([]) });
  assert.match(error.message, 'The host localhost is not allowed');
  assert.not.match(error.message, 'loopback');
  await expectFailure(`${base}/file`, 'refused', { guard: createAddressGuard([]) });
});

test('the connection goes to the address the guard approved, with the URL host kept in Host', async () => {
  // A name that does not resolve anywhere: only the guard's answer can make the connection.
  const pinned: AddressGuard = { check: async () => ({ address: '127.0.0.1', family: 4 }) };
  const path = dest();
  const result = await downloadToFile(`http://media.scribe.invalid:${port}/file`, path, options({ guard: pinned }));
  assert.is(result.size, FILE.length);
  assert.equal(seen.at(-1), { url: '/file', host: `media.scribe.invalid:${port}` });
});

test('a non-2xx answer is http_status with the status', async () => {
  const error = await expectFailure(`${base}/missing`, 'http_status');
  assert.is(error.status, 404);
  assert.is(error.message, `127.0.0.1:${port} answered HTTP 404.`);
  assert.is((await expectFailure(`${base}/no-location`, 'http_status')).status, 302);
});

test('too large is refused from Content-Length, and while streaming when there is none', async () => {
  const declared = await expectFailure(`${base}/declared-big`, 'too_large');
  assert.is(declared.message, 'The file is larger than 1 MB.');
  await expectFailure(`${base}/streamed-big`, 'too_large');
  const path = dest();
  assert.is((await downloadToFile(`${base}/file`, path, options({ maxBytes: FILE.length }))).size, FILE.length);
  await expectFailure(`${base}/file`, 'too_large', { maxBytes: FILE.length - 1 });
});

test('the deadline covers a server that never answers and one that stops mid-body', async () => {
  for (const url of [`${base}/hang`, `${base}/trickle`]) {
    const started = Date.now();
    const error = await expectFailure(url, 'timeout', { timeoutMs: 300 });
    const elapsed = Date.now() - started;
    assert.ok(elapsed >= 290 && elapsed < 2000, `gave up after ${elapsed} ms`);
    assert.is(error.message, 'The download did not finish within 0.3 s.');
  }
});

test("the caller's signal cancels the download", async () => {
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 100);
  await expectFailure(`${base}/trickle`, 'aborted', { signal: controller.signal });
  await expectFailure(`${base}/file`, 'aborted', { signal: AbortSignal.abort() });
});

test('a refused connection or an unresolvable host is network', async () => {
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const closedPort = (closed.address() as AddressInfo).port;
  await new Promise((resolve) => closed.close(resolve));
  const error = await expectFailure(`http://127.0.0.1:${closedPort}/file`, 'network');
  assert.match(error.message, 'ECONNREFUSED');
  await expectFailure('http://no-such-host.invalid/file', 'network');
});

test("a destination that cannot be written is the server's own error, not a DownloadError", async () => {
  try {
    await downloadToFile(`${base}/file`, join(dir, 'no-such-dir', 'x.bin'), options());
    assert.unreachable('expected a file-system error');
  } catch (error) {
    assert.not.instance(error, DownloadError);
    assert.is((error as NodeJS.ErrnoException).code, 'ENOENT');
  }
});

test.run();
