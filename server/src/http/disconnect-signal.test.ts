// The signal a handler gets for "the client went away" (disconnect-signal.ts), made on first use: asked for while
// the client is connected it aborts when the client leaves; asked for after the client left it is already aborted;
// a response that was finished never aborts it.
import { once } from 'node:events';
import { createServer, request, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { disconnectSignal } from './disconnect-signal.ts';

const test = suite('disconnect signal');

/** A server whose one request is handed to `onRequest`, and a client request to it. */
async function serve(onRequest: (res: ServerResponse) => void) {
  const server = createServer((_req, res) => onRequest(res));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const client = request({ port: (server.address() as AddressInfo).port, host: '127.0.0.1', path: '/' });
  client.on('error', () => undefined);
  client.end();
  return { server, client };
}

test('asked for while the client is connected, it aborts when the client leaves', async () => {
  let signal: AbortSignal | undefined;
  const { server, client } = await serve((res) => {
    signal = disconnectSignal(res);
    client.destroy();
  });
  while (!signal?.aborted) await sleep(5);
  assert.is((signal.reason as Error).message, 'client disconnected');
  server.close();
});

test('asked for only after the client left, it is aborted from the start', async () => {
  let late: AbortSignal | undefined;
  const { server, client } = await serve((res) => {
    client.destroy();
    res.once('close', () => {
      late = disconnectSignal(res);
    });
  });
  while (!late) await sleep(5);
  assert.ok(late.aborted);
  server.close();
});

test('a finished response does not abort it, before or after the close', async () => {
  let early: AbortSignal | undefined;
  let late: AbortSignal | undefined;
  const { server, client } = await serve((res) => {
    early = disconnectSignal(res);
    res.once('close', () => {
      late = disconnectSignal(res);
    });
    res.end('done');
  });
  const [response] = await once(client, 'response');
  response.resume();
  await once(response, 'end');
  while (!late) await sleep(5);
  assert.equal([early?.aborted, late.aborted], [false, false]);
  server.close();
});

test.run();
