// The OpenAI-compatible engine against a real local HTTP server written here: what it sends (multipart parsed with
// undici's own FormData parser: a valid 16 kHz mono WAV carrying exactly the PCM file's samples, model, language,
// verbose_json, word timestamps, the terms as prompt, the API key), how a realistic verbose_json answer is mapped (times
// rounded, confidence only when the upstream gives one, duration of the audio sent), and each failure as an EngineError.
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { EngineError } from './engine.ts';
import { createOpenAiCompatibleEngine } from './openai-compatible.ts';
import { GO_FORWARD } from './test-audio.ts';
import { parseWav } from './wav.ts';
import { rejectionOf } from '../../test-support/rejection.ts';

const test = suite('openai-compatible engine');

interface Received {
  method: string;
  url: string;
  authorization: string | undefined;
  contentType: string;
  form: FormData;
}

type Reply = (res: ServerResponse, received: Received) => void;

let server: Server;
let baseUrl: string;
let dir: string;
let reply: Reply;
const received: Received[] = [];

/** What an OpenAI-style server answers for goforward.raw with verbose_json + word timestamps. */
const verboseJson = {
  task: 'transcribe',
  language: 'english',
  duration: 2.7899999618530273,
  text: ' Go forward ten meters.',
  words: [
    { word: ' Go', start: 0.46000000834465027, end: 0.6399999856948853 },
    { word: ' forward', start: 0.6399999856948853, end: 1.1699999570846558 },
    { word: ' ten', start: 1.1699999570846558, end: 1.5199999809265137 },
    { word: ' meters.', start: 1.5299999713897705, end: 2.109999895095825, probability: 0.9134 },
  ],
  segments: [
    {
      id: 0,
      seek: 0,
      start: 0.46,
      end: 2.11,
      text: ' Go forward ten meters.',
      tokens: [50364, 1037, 2128, 2064, 13352, 13, 50470],
      temperature: 0,
      avg_logprob: -0.21,
      compression_ratio: 0.75,
      no_speech_prob: 0.01,
    },
  ],
};

const json =
  (status: number, body: unknown): Reply =>
  (res) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };

test.before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'openai-engine-'));
  server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    try {
      for await (const chunk of req) chunks.push(chunk as Buffer);
    } catch {
      return; // the engine gave up while sending (the timeout and cancel cases): nothing to answer, not a crash
    }
    const contentType = req.headers['content-type'] ?? '';
    const form = await new Response(Buffer.concat(chunks), { headers: { 'content-type': contentType } })
      .formData()
      .catch(() => new FormData());
    const entry: Received = {
      method: req.method ?? '',
      url: req.url ?? '',
      authorization: req.headers.authorization,
      contentType,
      form,
    };
    received.push(entry);
    reply(res, entry);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});

test.after(async () => {
  server.closeAllConnections();
  server.close();
  await rm(dir, { recursive: true, force: true });
});

test.before.each(() => {
  received.length = 0;
  reply = json(200, verboseJson);
});

test('sends a valid WAV of the PCM and the verbose_json fields; maps the answer', async () => {
  const engine = createOpenAiCompatibleEngine({ baseUrl: `${baseUrl}/`, apiKey: 'sk-test', model: 'whisper-1' });
  const progress: number[] = [];
  const result = await engine.transcribe(
    { pcmPath: GO_FORWARD.path, language: 'en-US', terms: ['Dashwood', 'Barton Park'] },
    { onProgress: (f) => progress.push(f) },
  );

  assert.is(received.length, 1);
  const [request] = received;
  assert.is(request!.method, 'POST');
  assert.is(request!.url, '/v1/audio/transcriptions');
  assert.is(request!.authorization, 'Bearer sk-test');
  assert.match(request!.contentType, /^multipart\/form-data; boundary=/);
  const form = request!.form;
  assert.is(form.get('model'), 'whisper-1');
  assert.is(form.get('language'), 'en');
  assert.is(form.get('response_format'), 'verbose_json');
  assert.equal(form.getAll('timestamp_granularities[]'), ['word']);
  assert.is(form.get('prompt'), 'Dashwood, Barton Park');

  const file = form.get('file');
  assert.instance(file, File);
  assert.is((file as File).name, 'audio.wav');
  assert.is((file as File).type, 'audio/wav');
  const bytes = Buffer.from(await (file as File).arrayBuffer());
  const wav = parseWav(bytes);
  assert.equal([wav.format, wav.channels, wav.sampleRate, wav.bitsPerSample], [1, 1, 16000, 16]);
  const pcm = readFileSync(GO_FORWARD.path);
  assert.is(bytes.length, 44 + pcm.length);
  assert.ok(wav.data.equals(pcm), 'the WAV carries exactly the PCM file');

  assert.is(result.text, 'Go forward ten meters.');
  assert.is(result.duration, 2.79);
  assert.equal(result.words, [
    { word: 'Go', start: 0.46, end: 0.64 },
    { word: 'forward', start: 0.64, end: 1.17 },
    { word: 'ten', start: 1.17, end: 1.52 },
    { word: 'meters.', start: 1.53, end: 2.11, confidence: 0.913 },
  ]);
  assert.not.ok('confidence' in result.words[0]!, 'no made-up confidence');
  assert.equal(progress, [1]);
});

test('no terms → no prompt; no API key → no Authorization; an odd trailing byte is not sent', async () => {
  const odd = join(dir, 'odd.raw');
  await writeFile(odd, Buffer.concat([readFileSync(GO_FORWARD.path).subarray(0, 3201)]));
  const engine = createOpenAiCompatibleEngine({ baseUrl, apiKey: '', model: 'large-v3' });
  reply = json(200, { text: 'go', duration: 0.1 }); // an upstream that ignores timestamp_granularities
  const result = await engine.transcribe({ pcmPath: odd, language: 'de' });
  const form = received[0]!.form;
  assert.is(form.get('prompt'), null);
  assert.is(received[0]!.authorization, undefined);
  const wav = parseWav(Buffer.from(await (form.get('file') as File).arrayBuffer()));
  assert.is(wav.data.length, 3200);
  assert.equal(result, { text: 'go', duration: 0.1, words: [] });
});

test('an empty file is an empty transcript without a request', async () => {
  const empty = join(dir, 'empty.raw');
  await writeFile(empty, Buffer.alloc(0));
  const engine = createOpenAiCompatibleEngine({ baseUrl, apiKey: 'k', model: 'm' });
  assert.equal(await engine.transcribe({ pcmPath: empty, language: 'en' }), { text: '', duration: 0, words: [] });
  assert.is(received.length, 0);
});

test('HTTP errors are upstream_error with the status and the upstream message', async () => {
  const engine = createOpenAiCompatibleEngine({ baseUrl, apiKey: 'bad', model: 'whisper-1' });
  reply = json(401, { error: { message: 'Incorrect API key provided: bad.', type: 'invalid_request_error' } });
  const unauthorized = await rejectionOf(engine.transcribe({ pcmPath: GO_FORWARD.path, language: 'en' }), EngineError);
  assert.equal([unauthorized.code, unauthorized.status, unauthorized.retryable], ['upstream_error', 401, false]);
  assert.match(unauthorized.message, /answered 401: Incorrect API key provided/);

  reply = (res) => {
    res.writeHead(503, { 'content-type': 'text/plain' });
    res.end('overloaded, try later');
  };
  const overloaded = await rejectionOf(engine.transcribe({ pcmPath: GO_FORWARD.path, language: 'en' }), EngineError);
  assert.equal([overloaded.code, overloaded.status, overloaded.retryable], ['upstream_error', 503, true]);
  assert.match(overloaded.message, /503: overloaded, try later/);
});

test('a 2xx answer that is not verbose_json is upstream_invalid_response', async () => {
  const engine = createOpenAiCompatibleEngine({ baseUrl, apiKey: 'k', model: 'm' });
  for (const body of ['not json at all', JSON.stringify({ words: [] }), JSON.stringify({ text: 'a', words: [{}] })]) {
    reply = (res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(body);
    };
    const error = await rejectionOf(engine.transcribe({ pcmPath: GO_FORWARD.path, language: 'en' }), EngineError);
    assert.is(error.code, 'upstream_invalid_response', body);
  }
});

test('unreachable, too slow, and cancelled', async () => {
  const closed = createServer();
  closed.listen(0, '127.0.0.1');
  await once(closed, 'listening');
  const port = (closed.address() as AddressInfo).port;
  closed.close();
  await once(closed, 'close');
  const nobody = createOpenAiCompatibleEngine({ baseUrl: `http://127.0.0.1:${port}/v1`, apiKey: 'k', model: 'm' });
  const refused = await rejectionOf(nobody.transcribe({ pcmPath: GO_FORWARD.path, language: 'en' }), EngineError);
  assert.equal([refused.code, refused.retryable], ['upstream_unreachable', true]);
  assert.match(refused.message, /cannot reach the upstream .*ECONNREFUSED/);

  reply = () => undefined; // never answers
  const slow = createOpenAiCompatibleEngine({ baseUrl, apiKey: 'k', model: 'm', timeoutMs: 300 });
  const timedOut = await rejectionOf(slow.transcribe({ pcmPath: GO_FORWARD.path, language: 'en' }), EngineError);
  assert.is(timedOut.code, 'upstream_unreachable');
  assert.match(timedOut.message, /did not answer in 300 ms/);

  const controller = new AbortController();
  const pending = rejectionOf(
    slow.transcribe({ pcmPath: GO_FORWARD.path, language: 'en' }, { signal: controller.signal }),
    EngineError,
  );
  await new Promise((resolve) => setTimeout(resolve, 50));
  const abortedAt = performance.now();
  controller.abort();
  const cancelled = await pending;
  assert.is(cancelled.code, 'cancelled');
  assert.ok(performance.now() - abortedAt < 100);
});

test('languages: any by default, or the configured list; close', async () => {
  const any = createOpenAiCompatibleEngine({ baseUrl, apiKey: 'k', model: 'm' });
  assert.is(any.kind, 'openai-compatible');
  assert.equal(any.languages, ['*']);
  for (const tag of ['en', 'de-AT', 'yue', 'PT_br']) assert.ok(any.supports(tag), tag);
  for (const tag of ['', 'auto', '1']) assert.not.ok(any.supports(tag), tag);

  const listed = createOpenAiCompatibleEngine({ baseUrl, apiKey: 'k', model: 'm', languages: ['en', 'de-DE'] });
  assert.equal(listed.languages, ['en', 'de']);
  assert.ok(listed.supports('de-CH'));
  assert.not.ok(listed.supports('fr'));
  const unsupported = await rejectionOf(listed.transcribe({ pcmPath: GO_FORWARD.path, language: 'fr' }), EngineError);
  assert.is(unsupported.code, 'unsupported_language');
  assert.is(received.length, 0);

  await listed.close();
  assert.is(
    (await rejectionOf(listed.transcribe({ pcmPath: GO_FORWARD.path, language: 'en' }), EngineError)).code,
    'engine_closed',
  );
});

test('a missing PCM file is invalid_audio', async () => {
  const engine = createOpenAiCompatibleEngine({ baseUrl, apiKey: 'k', model: 'm' });
  const error = await rejectionOf(
    engine.transcribe({ pcmPath: join(dir, 'missing.raw'), language: 'en' }),
    EngineError,
  );
  assert.is(error.code, 'invalid_audio');
});

test.run();
