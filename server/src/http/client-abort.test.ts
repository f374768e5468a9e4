// A client that hangs up mid-body, and one that stops sending it, cost one info line each: no "unhandled error"
// with a stack, no 500 in the access log (the access log says 499, nginx's "client closed request"). The stalled
// body's connection is closed by the server after SCRIBE_IDLE_BODY_TIMEOUT_MS.
import { randomBytes } from 'node:crypto';
import { connect, type AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createApp, type App } from '../app.ts';
import { loadConfig } from '../config.ts';
import { freshDatabase } from '../test-support/test-databases.ts';

interface Line {
  level: number;
  msg: string;
  status?: number;
  err?: { stack?: string };
  path?: string;
}

const test = suite('client aborts');
const lines: Line[] = [];
let app: App;
let port: number;
let apiKey: string;
let drop: () => Promise<void>;

test.before(async () => {
  const database = await freshDatabase('sqlite', { migrated: true });
  drop = database.drop;
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const text of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(text) as Line);
      done();
    },
  });
  const config = loadConfig({
    NODE_ENV: 'test',
    SCRIBE_SECRET_KEY: randomBytes(32).toString('hex'),
    SCRIBE_IDLE_BODY_TIMEOUT_MS: '600',
    ...database.env,
  });
  app = await createApp(config, { logger: pino({ level: 'info' }, sink) });
  await new Promise<void>((resolve) => app.server.listen(0, '127.0.0.1', resolve));
  port = (app.server.address() as AddressInfo).port;
  apiKey = (await app.services.accounts.create({})).api_key!;
});

test.after(async () => {
  await app.close();
  await drop();
});

/**
 * Sends the head of an authenticated JSON POST announcing 4 KB and 100 bytes of it; resolves with the socket. (A body
 * is read only once its headers authenticate: without a key the answer is 401 before any of it is read.)
 */
function partialPost(path: string) {
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => undefined);
  socket.write(
    `POST ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${apiKey}\r\nContent-Type: application/json\r\n` +
      `Content-Length: 4096\r\n\r\n{"name": "${'a'.repeat(80)}`,
  );
  return socket;
}

const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function assertQuiet(path: string) {
  const mine = lines.filter((line) => line.path === path);
  const access = mine.filter((line) => line.msg === 'request');
  assert.is(access.length, 1, JSON.stringify(mine));
  assert.is(access[0]!.status, 499);
  assert.ok(!mine.some((line) => line.level >= 50 || line.err?.stack), JSON.stringify(mine));
  assert.ok(mine.some((line) => line.level === 30 && line.msg.startsWith('client closed the connection')));
}

test('a client that hangs up mid-body: an info line and 499, no error with a stack', async () => {
  const socket = partialPost('/v3/keys/create');
  await settle(150);
  socket.destroy();
  await settle(300);
  assertQuiet('/v3/keys/create');
});

test('a body that stops arriving: the server closes the connection after the idle timeout, quietly', async () => {
  const socket = partialPost('/v3/webhooks/create');
  const began = performance.now();
  // Bounded, so a server that never closes it fails this test instead of hanging the run.
  const closed = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the server did not close the connection within 10 s')), 10_000);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve(performance.now() - began);
    });
  });
  assert.ok(closed >= 500 && closed < 3000, `closed after ${Math.round(closed)} ms`);
  await settle(100);
  assertQuiet('/v3/webhooks/create');
  assert.ok(lines.some((line) => line.msg.startsWith('request body idle')));
});

test.run();
