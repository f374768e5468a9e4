// The OpenAI-compatible embedding engine against upstreams that answer in ways a real Scribe never does: arrays of
// numbers instead of base64, items out of order, no usage, too few vectors, non-JSON, errors with and without an OpenAI
// error body, and silence. The upstream is a small local HTTP server with canned answers — a stand-in, because no
// real server here misbehaves on demand (the well-behaved path runs against a real second Scribe in upstream.test.ts).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { EngineError } from '../transcriptions/engine/engine.ts';
import { createOpenAiCompatibleEmbeddingEngine, UpstreamRefusal } from './openai-compatible.ts';
import { toBase64 } from './vectors.ts';
import { rejectionOf } from '../test-support/rejection.ts';

type Answer = (
  request: { body: Record<string, unknown>; headers: IncomingMessage['headers'] },
  res: ServerResponse,
) => void;

const test = suite('openai-compatible embedding engine');
let server: Server;
let base = '';
let answer: Answer = () => undefined;
const seen: { body: Record<string, unknown>; headers: IncomingMessage['headers']; url: string }[] = [];

test.before(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
      seen.push({ body, headers: req.headers, url: req.url ?? '' });
      answer({ body, headers: req.headers }, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/`;
});
test.after(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const json = (status: number, body: unknown) => (_: unknown, res: ServerResponse) => {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(typeof body === 'string' ? body : JSON.stringify(body));
};
const engine = (timeoutMs?: number) =>
  createOpenAiCompatibleEmbeddingEngine({
    baseUrl: base,
    apiKey: 'upstream-key',
    model: 'text-embedding-3-small',
    ...(timeoutMs ? { timeoutMs } : {}),
  });

test('sends model, texts and base64 with the key; reads base64 and arrays, in index order', async () => {
  const e = engine();
  const texts = ['naïve text', 'second'];
  const measured = await e.measure(texts);
  assert.equal(measured, { tokens: [11, 6], exact: false }, 'UTF-8 bytes: an upper bound of any byte-level tokenizer');
  answer = json(200, {
    object: 'list',
    data: [
      { object: 'embedding', index: 1, embedding: [0, 1, 0] },
      { object: 'embedding', index: 0, embedding: toBase64(Float32Array.from([1, 0, 0])) },
    ],
    usage: { prompt_tokens: 5, total_tokens: 5 },
  });
  const embedded = await e.embed(texts, measured);
  const request = seen.at(-1)!;
  assert.is(request.url, '/v1/embeddings');
  assert.is(request.headers.authorization, 'Bearer upstream-key');
  assert.equal(request.body, { model: 'text-embedding-3-small', input: texts, encoding_format: 'base64' });
  assert.equal(
    embedded.vectors.map((v) => Array.from(v)),
    [
      [1, 0, 0],
      [0, 1, 0],
    ],
  );
  assert.is(embedded.tokens, 5, 'the upstream’s count is what is charged');
  assert.is(e.dimensions, 3);
  assert.is(e.status(), 'available');
});

test('without usage, the upper bound is charged', async () => {
  const e = engine();
  const measured = await e.measure(['abc']);
  answer = json(200, { data: [{ index: 0, embedding: [0.5, 0.5] }] });
  assert.is((await e.embed(['abc'], measured)).tokens, 3);
});

test('answers that are not an embedding list are upstream_invalid_response', async () => {
  const e = engine();
  const measured = await e.measure(['a', 'b']);
  for (const body of [
    'not json',
    { data: [{ index: 0, embedding: [1] }] },
    {
      data: [
        { index: 0, embedding: [1] },
        { index: 0, embedding: [1] },
      ],
    },
    {
      data: [
        { index: 0, embedding: [1, 2] },
        { index: 1, embedding: [1] },
      ],
    },
    {
      data: [
        { index: 0, embedding: 'not base64!' },
        { index: 1, embedding: {} },
      ],
    },
    {
      data: [
        { index: 0, embedding: [] },
        { index: 1, embedding: [] },
      ],
    },
  ]) {
    answer = json(200, body);
    const error = await rejectionOf(e.embed(['a', 'b'], measured), EngineError);
    assert.is(error.code, 'upstream_invalid_response', JSON.stringify(body));
  }
});

test('a 400 is an UpstreamRefusal with the upstream’s code and param; other errors are upstream_error', async () => {
  const e = engine();
  const measured = await e.measure(['a']);
  answer = json(400, {
    error: { type: 'invalid_request_error', code: 'context_length_exceeded', message: 'too long', param: 'input.0' },
  });
  const refused = await rejectionOf(e.embed(['a'], measured), EngineError);
  assert.instance(refused, UpstreamRefusal);
  assert.is((refused as UpstreamRefusal).upstreamCode, 'context_length_exceeded');
  assert.is((refused as UpstreamRefusal).param, 'input.0');
  assert.is(refused.message, 'too long');

  answer = json(503, { error: { message: 'overloaded' } });
  const busy = await rejectionOf(e.embed(['a'], measured), EngineError);
  assert.is(busy.code, 'upstream_error');
  assert.is(busy.status, 503);
  assert.ok(busy.retryable);
  assert.match(busy.message, /overloaded/);
  assert.is(e.status(), 'available', 'an upstream that answers is reachable');
});

test('silence past the time limit is upstream_unreachable and makes the engine unavailable until it answers', async () => {
  const e = engine(200);
  const measured = await e.measure(['a']);
  answer = () => undefined; // never answers
  const silent = await rejectionOf(e.embed(['a'], measured), EngineError);
  assert.is(silent.code, 'upstream_unreachable');
  assert.match(silent.message, /did not answer in 200 ms/);
  assert.is(e.status(), 'unavailable');
  answer = json(200, { data: [{ index: 0, embedding: [1] }], usage: { prompt_tokens: 1 } });
  await e.embed(['a'], measured);
  assert.is(e.status(), 'available');
  await e.close();
  assert.is((await rejectionOf(e.embed(['a'], measured), EngineError)).code, 'engine_closed');
});

test.run();
