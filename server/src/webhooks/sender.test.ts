// One attempt against real local receivers: the body and headers arrive unchanged; the address the guard approved is
// the one connected to (a host name that only the guard resolves); a refused address is never contacted; redirects
// are not followed; a silent receiver times out; a refused connection is a clear error.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createAddressGuard, type AddressGuard } from '../media/address-guard.ts';
import { sendAttempt } from './sender.ts';
import { startReceiver, type Receiver } from './test-receiver.ts';

const test = suite('webhook sender');
let receiver: Receiver;
const allowLocal = createAddressGuard(['127.0.0.1']);

test.before(async () => {
  receiver = await startReceiver();
});
test.after(async () => {
  await receiver.close();
});
test.before.each(() => {
  receiver.received.length = 0;
  receiver.answer = () => 200;
});

test('posts the body with the given headers; 2xx has no error', async () => {
  const outcome = await sendAttempt(`${receiver.url}/hook?x=1`, { 'webhook-id': 'abc' }, '{"a":1}', {
    guard: allowLocal,
    timeoutMs: 2000,
  });
  assert.equal([outcome.status, outcome.error, outcome.aborted], [200, null, false]);
  const [request] = receiver.received;
  assert.equal([request!.method, request!.path, request!.body], ['POST', '/hook', '{"a":1}']);
  assert.is(request!.headers['webhook-id'], 'abc');
  assert.is(request!.headers['content-type'], 'application/json');
});

test('connects to the address the guard approved, with the URL host in the Host header', async () => {
  const guard: AddressGuard = { check: async () => ({ address: '127.0.0.1', family: 4 }) };
  const outcome = await sendAttempt(`http://hooks.scribe-test.invalid:${receiver.port}/x`, {}, '{}', {
    guard,
    timeoutMs: 2000,
  });
  assert.is(outcome.status, 200, String(outcome.error));
  assert.is(receiver.received[0]!.headers.host, `hooks.scribe-test.invalid:${receiver.port}`);
});

test('a refused address is a failed attempt and nothing is sent', async () => {
  for (const url of [`${receiver.url}/hook`, 'http://10.0.0.1/hook', 'http://169.254.169.254/latest/meta-data/']) {
    const outcome = await sendAttempt(url, {}, '{}', { guard: createAddressGuard([]), timeoutMs: 2000 });
    assert.is(outcome.status, null, url);
    assert.match(outcome.error!, /^The URL was refused before sending: The host .* is not allowed: /, url);
    assert.not.match(outcome.error!, /loopback|link-local|10\.0\.0\.0/, url);
    // The range stays with the server's log.
    assert.match(outcome.refusalDetail!, /loopback|private|link-local/, url);
  }
  assert.is(receiver.received.length, 0);
});

test('a redirect is not followed; 500 and 410 are errors with the status', async () => {
  receiver.answer = (request) => (request.path === '/moved' ? 302 : request.path === '/gone' ? 410 : 500);
  const send = (path: string) =>
    sendAttempt(`${receiver.url}${path}`, {}, '{}', { guard: allowLocal, timeoutMs: 2000 });
  const moved = await send('/moved');
  assert.equal([moved.status, moved.error], [302, 'The receiver answered 302; redirects are not followed.']);
  assert.is((await send('/gone')).status, 410);
  assert.equal((await send('/boom')).error, 'The receiver answered 500.');
  assert.is(receiver.received.length, 3);
});

test('a silent receiver times out; a closed port is a connection error', async () => {
  receiver.answer = () => 'hang';
  const started = Date.now();
  const silent = await sendAttempt(`${receiver.url}/`, {}, '{}', { guard: allowLocal, timeoutMs: 300 });
  assert.equal([silent.status, silent.error], [null, 'No answer within 0.3 s.']);
  assert.ok(Date.now() - started < 2000);
  const other = await startReceiver();
  await other.close();
  const refused = await sendAttempt(`${other.url}/`, {}, '{}', { guard: allowLocal, timeoutMs: 2000 });
  assert.equal([refused.status, refused.error], [null, 'The connection failed (ECONNREFUSED).']);
});

test('an abort from the caller ends the attempt as aborted', async () => {
  receiver.answer = () => 'hang';
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 100);
  const outcome = await sendAttempt(`${receiver.url}/`, {}, '{}', {
    guard: allowLocal,
    timeoutMs: 5000,
    signal: controller.signal,
  });
  assert.equal([outcome.status, outcome.aborted], [null, true]);
});

test.run();
