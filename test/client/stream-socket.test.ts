// scribe-client's stream protocol pieces against the real server (SQLite, the real PocketSphinx stream engine, real
// WebSockets from the `ws` package): openStreamSocket (every frame kept in order, raw text, the close code and reason
// read back, a close code of the client's own, a refused upgrade as one StreamError), connectStream's hooks (every
// message as received, every frame as it arrives) and sendPacedAudio (real-time pace, or as fast as the socket takes).
import { readFileSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import WebSocket from 'ws';
import { connectStream, StreamError, type StreamServerFrame } from '../../client/src/connect-stream.ts';
import { sendPacedAudio } from '../../client/src/send-paced-audio.ts';
import { openStreamSocket } from '../../client/src/stream-socket.ts';
import { createClient } from '../../generated/client/client/index.ts';
import { GOFORWARD_RAW } from '../../server/src/test-support/audio.ts';
import { useHarness, type Harness } from '../../server/src/test-support/harness.ts';

const GOFORWARD = readFileSync(GOFORWARD_RAW);
const test = suite('scribe-client stream socket');
const harness = useHarness(test, 'sqlite', { env: { SCRIBE_RATE_LIMIT_RPS: '1000' } });

async function ticket(h: Harness): Promise<string> {
  const a = await h.provision({ balance: 100 });
  const reply = await h.v3(a.apiKey, 'POST', '/v3/transcriptions/stream/create');
  assert.is(reply.status, 201, reply.text);
  return reply.body.stream_url as string;
}

test('raw text that is not JSON: the error frame is kept, and the close code and reason are read back', async () => {
  const h = harness();
  const messages: (string | ArrayBuffer)[] = [];
  const socket = await openStreamSocket(await ticket(h), {
    WebSocket,
    onServerMessage: (data) => messages.push(data),
    frameTimeoutMs: 60_000,
  });
  assert.ok(socket.isOpen);
  socket.sendText('{nope');
  const error = await socket.next('error');
  assert.equal([error.error.code, error.close_code], ['invalid_json', 4400]);
  const closed = await socket.closed;
  assert.is(closed.code, 4400);
  assert.ok(closed.reason.length > 0, 'the server names the reason in the close frame');
  assert.not.ok(socket.isOpen);
  assert.equal(socket.frames, [error]);
  assert.equal(messages, [JSON.stringify(error)], 'onServerMessage saw the message as sent');
  // Waiting for a frame that can no longer come rejects at once with how the connection closed.
  const late = await socket.next('session.started').catch((failure: unknown) => failure);
  assert.instance(late, StreamError);
  assert.is((late as StreamError).close.code, 4400);
  assert.match((late as StreamError).message, /invalid_json: .* \(close 4400\) before a session\.started frame/);
});

test('next waits by type from an index, and gives up after its timeout with what came instead', async () => {
  const h = harness();
  const socket = await openStreamSocket(await ticket(h), { WebSocket, frameTimeoutMs: 60_000 });
  const waited = Date.now();
  const quiet = await socket.next('session.started', { timeoutMs: 300 }).catch((failure: Error) => failure);
  assert.ok(Date.now() - waited >= 290, 'it waited the timeout');
  assert.match((quiet as Error).message, /^no session\.started frame within 300 ms \(got none\)$/);
  socket.sendFrame({ type: 'session', language: 'en', interim_results: false, endpointing: false });
  const started = await socket.next('session.started');
  assert.is(started.config.endpointing, false);
  socket.sendFrame({ type: 'finalize' });
  const first = await socket.next('transcript.final');
  const count = socket.frames.length;
  socket.sendFrame({ type: 'finalize' });
  const second = await socket.next('transcript.final', { from: count });
  assert.is.not(second, first, 'from skips the frames before it');
  assert.equal(socket.of('transcript.final'), [first, second]);
  // A close code of the client's own (an application code, 4000–4999) reaches the server and comes back in its echo.
  socket.close(4000, 'done here');
  assert.is((await socket.closed).code, 4000);
});

test('connectStream: onFrame sees every frame in order as it arrives; sendPacedAudio at real-time pace', async () => {
  const h = harness();
  const a = await h.provision({ balance: 100 });
  const client = createClient({ baseUrl: h.baseUrl, auth: () => a.apiKey });
  const seen: { frame: StreamServerFrame; at: number }[] = [];
  const raw: (string | ArrayBuffer)[] = [];
  const connection = await connectStream(client, {
    session: { language: 'en' },
    WebSocket,
    onFrame: (frame) => seen.push({ frame, at: performance.now() }),
    onServerMessage: (data) => raw.push(data),
  });
  const second = GOFORWARD.subarray(0, 16_000 * 2); // 1 s of audio
  const sent: number[] = [];
  const began = performance.now();
  await sendPacedAudio(connection, second, { onChunk: (seconds) => sent.push(seconds) });
  const took = performance.now() - began;
  assert.equal(
    sent.map((s) => Math.round(s * 10)),
    [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
    '100 ms chunks',
  );
  // Ten chunks, one per 100 ms of wall time: the last goes out 900 ms after the first.
  assert.ok(took >= 890, `1 s of audio sent in ${took.toFixed(0)} ms`);
  await sendPacedAudio(connection, GOFORWARD.subarray(second.length), { leadMs: Infinity });
  const completed = await connection.end();
  assert.is(completed.duration, GOFORWARD.length / 2 / 16_000);
  const types = seen.map(({ frame }) => frame.type);
  assert.is(types[0], 'session.started');
  assert.is(types.at(-1), 'session.completed');
  assert.equal(
    seen.map(({ frame }) => frame),
    [...connection.socket.frames],
  );
  assert.equal(
    raw.map((data) => JSON.parse(data as string)),
    [...connection.socket.frames],
  );
  seen.slice(1).forEach(({ at }, i) => assert.ok(at >= seen[i]!.at, 'arrival times in order'));
  assert.match(
    connection.socket
      .of('transcript.final')
      .map((f) => f.text)
      .join(' '),
    /go forward ten meters/,
  );
  assert.is((await connection.closed).code, 1000);
  assert.not.ok(connection.isOpen);
});

test('sendPacedAudio stops once the connection closed', async () => {
  const h = harness();
  const socket = await openStreamSocket(await ticket(h), { WebSocket });
  socket.sendFrame({ type: 'session', language: 'en' });
  await socket.next('session.started');
  let chunks = 0;
  const sending = sendPacedAudio(socket, Buffer.alloc(16_000 * 2 * 60), { onChunk: () => chunks++ }); // 60 s
  await new Promise((resolve) => setTimeout(resolve, 350));
  socket.close(1000);
  await socket.closed;
  await sending; // resolves well before the minute of audio would have been sent
  assert.ok(chunks >= 3 && chunks <= 6, `${chunks} chunks sent in 350 ms before the close`);
});

test('a refused upgrade rejects with one StreamError naming the answer', async () => {
  const h = harness();
  const failure = await openStreamSocket(`${h.baseUrl.replace('http', 'ws')}/v3/other`, { WebSocket }).catch(
    (error: unknown) => error,
  );
  assert.instance(failure, StreamError);
  assert.is((failure as StreamError).close.code, 1006);
  assert.match((failure as StreamError).message, /^the stream closed with 1006 Unexpected server response: 404$/);
});

test.run();
