// A shutdown drains instead of cutting: a request in flight when it begins (its body still arriving) is finished
// within SCRIBE_DRAIN_MS, and GET /health answered meanwhile says `draining` with 503, so a load balancer stops
// sending requests; a request still running when the drain time is over has its connection cut.
import { randomBytes } from 'node:crypto';
import { connect, type AddressInfo } from 'node:net';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createApp } from '../app.ts';
import { loadConfig } from '../config.ts';
import { freshDatabase } from '../test-support/test-databases.ts';

const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function startNode(drainMs: string) {
  const database = await freshDatabase('sqlite', { migrated: true });
  const app = await createApp(
    loadConfig({
      NODE_ENV: 'test',
      SCRIBE_SECRET_KEY: randomBytes(32).toString('hex'),
      SCRIBE_DRAIN_MS: drainMs,
      ...database.env,
    }),
  );
  await new Promise<void>((resolve) => app.server.listen(0, '127.0.0.1', resolve));
  const account = await app.services.accounts.create({});
  return { app, database, port: (app.server.address() as AddressInfo).port, apiKey: account.api_key! };
}

/** Opens a key-creating POST whose body arrives in two halves; returns the socket and everything it receives. */
function slowPost(port: number, apiKey: string) {
  const body = JSON.stringify({ name: 'sent during a shutdown' });
  const socket = connect(port, '127.0.0.1');
  let received = '';
  socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
  socket.on('error', () => undefined);
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.write(
    `POST /v3/keys/create HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${apiKey}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 10)}`,
  );
  return { socket, rest: body.slice(10), received: () => received, closed };
}

const test = suite('shutdown drain');

test('a request in flight finishes within the drain time; /health meanwhile is 503 draining', async () => {
  const { app, database, port, apiKey } = await startNode('30000');
  try {
    const post = slowPost(port, apiKey);
    await settle(200);
    const closing = app.close();
    await settle(300);
    // The rest of the body, and a health probe pipelined behind it on the same connection.
    post.socket.write(`${post.rest}GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
    await post.closed;
    await closing;
    const [first, second] = post.received().split(/(?=HTTP\/1\.1 )/);
    assert.match(first ?? '', /^HTTP\/1\.1 201 /, post.received());
    assert.match(second ?? '', /^HTTP\/1\.1 503 /, post.received());
    assert.match(second ?? '', /"status":"draining"/);
  } finally {
    await app.close();
    await database.drop();
  }
});

test('a request still running when the drain time is over has its connection cut', async () => {
  const { app, database, port, apiKey } = await startNode('500');
  try {
    const post = slowPost(port, apiKey);
    await settle(200);
    const began = performance.now();
    await app.close();
    const took = performance.now() - began;
    await post.closed;
    assert.ok(took >= 400 && took < 5000, `shutdown took ${Math.round(took)} ms`);
    assert.is(post.received(), '');
  } finally {
    await database.drop();
  }
});

test.run();
