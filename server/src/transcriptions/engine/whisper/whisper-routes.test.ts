// The whisper engine through the API, with a synthetic model (random weights, tiny dimensions; see
// test-support/whisper-model.ts): sync without a language (the interface's `ru`), `auto` (detected), async, v2 and
// the OpenAI-style route complete with words whose times lie within the audio; /v3/models lists the engine's
// languages; a killed model process fails its attempt only and the task is taken again; a cancel (the job's signal,
// as the runner aborts it) kills the decoding process and a new one takes its place; a truncated model is a degraded
// start. The output of a random model is garbage, so only
// structure and times are asserted, never text.
//
// SQLite only: the engine's behaviour does not depend on the database, and each suite pays for model processes.
import { copyFileSync, mkdtempSync, readFileSync, statSync, truncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { GOFORWARD_RAW, goforward, librivoxReadings } from '../../../test-support/audio.ts';
import { useHarness, type Harness } from '../../../test-support/harness.ts';
import { writeSyntheticWhisperModel } from '../../../test-support/whisper-model.ts';
import { EngineError } from '../engine.ts';
import { noise, writePcm } from '../test-audio.ts';
import { createWhisperEngine, type WhisperEngine } from './engine.ts';
import type { WhisperProcessPool } from './process-pool.ts';

const dir = mkdtempSync(join(tmpdir(), 'scribe-whisper-routes-'));
const model = join(dir, 'synthetic.bin');
writeSyntheticWhisperModel(model);
const truncated = join(dir, 'truncated.bin');
copyFileSync(model, truncated);
truncateSync(truncated, statSync(model).size - 100);

const env = (modelPath: string, extra: Record<string, string> = {}) => ({
  SCRIBE_WHISPER_MODEL: modelPath,
  SCRIBE_WORKERS: '1',
  SCRIBE_JOB_POLL_MS: '200',
  SCRIBE_RATE_LIMIT_RPS: '1000',
  ...extra,
});

function form(path: string, fields: Record<string, string> = {}): FormData {
  const body = new FormData();
  for (const [name, value] of Object.entries(fields)) body.set(name, value);
  body.set('file', new Blob([readFileSync(path)]), basename(path));
  return body;
}

interface Word {
  word: string;
  start: number;
  end: number;
}

/** Structure and times only: words in time order, within the audio, each with a non-empty spelling. */
function assertWords(words: Word[], duration: number, where: string) {
  assert.ok(words.length > 0, `${where}: no words`);
  let previous = 0;
  for (const w of words) {
    assert.type(w.word, 'string');
    assert.ok(w.word.length > 0, `${where}: an empty word`);
    assert.ok(w.start >= previous, `${where}: ${w.start} starts before ${previous}`);
    assert.ok(w.end >= w.start && w.end <= duration, `${where}: [${w.start}, ${w.end}] outside [start, ${duration}]`);
    previous = w.start;
  }
}

async function final(h: Harness, apiKey: string, id: string, timeoutMs = 60_000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const reply = await h.v3(apiKey, 'GET', `/v3/transcriptions/status/${id}`);
    assert.is(reply.status, 200, reply.text);
    const task = reply.body.data;
    if (['completed', 'failed', 'cancelled'].includes(task.status)) return task;
    if (Date.now() > until) throw new Error(`task ${id} still ${task.status} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function until<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, timeoutMs = 30_000) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function poolOf(h: Harness): WhisperProcessPool {
  const engine = h.app.services.transcriptionEngine as WhisperEngine;
  assert.is(engine.kind, 'whisper');
  return engine.pool;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

{
  // The retries of the decoder's temperature fallback are off: a random model fails its quality check in every
  // window, and each retry would decode the window again (60 s of audio: 1–2 s instead of 22–53 s).
  const test = suite('whisper engine through the API (sqlite)');
  const harness = useHarness(test, 'sqlite', { env: env(model, { SCRIBE_WHISPER_TEMPERATURE_INC: '0' }) });

  test('/v3/models lists the whisper engine and its languages; /health is ok', async () => {
    const h = harness();
    const account = await h.provision({ balance: 10 });
    const models = await h.v3(account.apiKey, 'GET', '/v3/models');
    assert.is(models.status, 200, models.text);
    const transcribe = models.body.data.find((m: { id: string }) => m.id === 'service-transcribe');
    assert.is(transcribe.engine, 'whisper');
    assert.is(transcribe.status, 'available');
    assert.is(transcribe.languages.length, 99);
    for (const code of ['ru', 'en', 'de', 'jv', 'haw']) assert.ok(transcribe.languages.includes(code), code);
    const health = await h.request('GET', '/health');
    assert.is(health.body.checks.engines.transcription, 'available');
  });

  test('sync without a language (the default ru) and with auto: completed, words within the audio', async () => {
    const h = harness();
    const account = await h.provision({ balance: 10 });
    const plain = await h.v3(account.apiKey, 'POST', '/v3/transcriptions/sync/create', {
      form: form(goforward('wav')),
    });
    assert.is(plain.status, 200, plain.text);
    assert.is(plain.body.data.language, 'ru', "the interface's default");
    const task = await final(h, account.apiKey, plain.body.data.id);
    assert.is(task.status, 'completed', JSON.stringify(task.error));
    assert.is(task.language, 'ru');
    assert.is(task.result.language, 'ru');
    assert.ok(Math.abs(task.result.duration - 2.79) < 0.05, `duration ${task.result.duration}`);
    assertWords(task.result.words, task.result.duration, 'ru');
    assert.is(task.result.text.split(/\s+/).filter(Boolean).length, task.result.words.length);

    const auto = await h.v3(account.apiKey, 'POST', '/v3/transcriptions/sync/create', {
      form: form(goforward('wav'), { language: 'auto' }),
    });
    assert.is(auto.status, 200, auto.text);
    const detected = await final(h, account.apiKey, auto.body.data.id);
    assert.is(detected.status, 'completed', JSON.stringify(detected.error));
    assert.match(detected.result.language, /^[a-z]{2,3}$/, 'a detected language, not auto');
    assert.is(detected.language, detected.result.language, 'the task says the detected language too');
    assertWords(detected.result.words, detected.result.duration, 'auto');

    const unknown = await h.v3(account.apiKey, 'POST', '/v3/transcriptions/sync/create', {
      form: form(goforward('wav'), { language: 'xx' }),
    });
    assert.is(unknown.status, 400, unknown.text);
    assert.is(unknown.body.error.code, 'unsupported_language');
  });

  test('async upload, v2 and the OpenAI-style route (no language: detected) complete with timed words', async () => {
    const h = harness();
    const account = await h.provision({ balance: 10 });
    const created = await h.v3(account.apiKey, 'POST', '/v3/transcriptions/async/upload', {
      form: form(goforward('mp3'), { language: 'en' }),
    });
    assert.is(created.status, 202, created.text);
    const done = await final(h, account.apiKey, created.body.transcription_id);
    assert.is(done.status, 'completed', JSON.stringify(done.error));
    assert.is(done.result.language, 'en');
    assertWords(done.result.words, done.result.duration, 'async');

    const v2 = await h.signed(account.signer, 'POST', '/v2/transcriptions', { form: form(goforward('wav')) });
    assert.is(v2.status, 201, v2.text);
    const v2Id = v2.body.transcription_id as string;
    const v2Done = await until('the v2 transcription', async () => {
      const reply = await h.signed(account.signer, 'GET', `/v2/transcriptions/${v2Id}`);
      return ['completed', 'failed'].includes(reply.body.data.status) ? reply.body.data : undefined;
    });
    assert.is(v2Done.status, 'completed', JSON.stringify(v2Done));
    assert.is(v2Done.language, 'ru');

    const openai = await h.v3(account.apiKey, 'POST', '/v3/audio/transcriptions', {
      form: form(goforward('wav'), {
        model: 'whisper-1',
        response_format: 'verbose_json',
        'timestamp_granularities[]': 'word',
        prompt: 'Scribe, WebVTT',
      }),
    });
    assert.is(openai.status, 200, openai.text);
    assert.match(openai.body.language, /^[a-z]{2,3}$/);
    assertWords(openai.body.words, openai.body.duration, 'openai');
  });

  test.run();
}

{
  const test = suite('whisper engine: a model process killed mid-decode (sqlite)');
  const harness = useHarness(test, 'sqlite', { env: env(model, { SCRIBE_WHISPER_TEMPERATURE_INC: '0' }) });

  test('fails that attempt only: the process is replaced, the task is taken again and completes', async () => {
    const h = harness();
    const account = await h.provision({ balance: 10 });
    const created = await h.v3(account.apiKey, 'POST', '/v3/transcriptions/async/upload', {
      form: form(librivoxReadings(1), { language: 'ru' }),
    });
    assert.is(created.status, 202, created.text);
    const id = created.body.transcription_id as string;
    const pool = poolOf(h);
    const pid = await until('a decoding model process', () => pool.busyPids()[0]);
    process.kill(pid, 'SIGKILL');
    const task = await final(h, account.apiKey, id, 120_000);
    assert.is(task.status, 'completed', JSON.stringify(task.error));
    assertWords(task.result.words, task.result.duration, 'after the crash');
    const row = await h.db('transcriptions').where({ id }).first();
    assert.is(row.attempts, 2, 'one attempt lost to the crash');
    assert.not.ok(pool.pids().includes(pid));
  });

  test.run();
}

{
  const test = suite('whisper engine: cancel mid-decode');
  let engine: WhisperEngine;
  const pcm = join(dir, 'long.raw');
  test.before(async () => {
    await writePcm(pcm, noise(30, 2000));
    engine = createWhisperEngine({ modelPath: model, decode: { temperatureInc: 0 } });
  });
  test.after(() => engine.close());

  test('the decoding process is killed at once and replaced; the next job runs on the new one', async () => {
    const controller = new AbortController();
    const running = engine.transcribe({ pcmPath: pcm, language: 'ru' }, { signal: controller.signal });
    const pid = await until('a decoding model process', () => engine.pool.busyPids()[0]);
    const started = Date.now();
    controller.abort();
    const error = await running.then(
      () => undefined,
      (rejection: unknown) => rejection,
    );
    assert.instance(error, EngineError);
    assert.is((error as EngineError).code, 'cancelled');
    assert.ok(Date.now() - started < 1000, 'rejected at once');
    await until('the decoding process to end', () => (alive(pid) ? undefined : true), 5000);
    const next = await engine.transcribe({ pcmPath: GOFORWARD_RAW, language: 'en' });
    assertWords(next.words, next.duration, 'after the cancel');
    assert.is(next.language, 'en');
    assert.not.ok(engine.pool.pids().includes(pid));
  });

  test.run();
}

{
  const test = suite('whisper engine with a truncated model (sqlite)');
  const harness = useHarness(test, 'sqlite', { env: env(truncated) });

  test('a degraded start: /health says why, transcription answers 503 engine_unavailable', async () => {
    const h = harness();
    const health = await h.request('GET', '/health');
    assert.is(health.body.status, 'degraded');
    const reason = health.body.checks.unavailable_reasons.transcription as string;
    assert.match(reason, /whisper model file is not usable: .*truncated/);
    assert.ok(!health.text.includes(dir), 'the reason names no server path');
    const account = await h.provision({ balance: 10 });
    const sync = await h.v3(account.apiKey, 'POST', '/v3/transcriptions/sync/create', {
      form: form(goforward('wav'), { language: 'ru' }),
    });
    assert.is(sync.status, 503, sync.text);
    assert.is(sync.body.error.code, 'engine_unavailable');
    assert.is(h.app.services.transcriptionEngine.kind, 'whisper');
    assert.ok(h.app.services.transcriptionEngine.unavailable, 'an unavailable engine, no model process');
  });

  test.run();
}
