// OpenAI's speech-to-text call (`POST /v3/audio/transcriptions`) through the API, with the real engine, real ffmpeg
// and a real database: every response_format, the word and segment granularities, the whisper-1 alias, an unknown
// model, the task it leaves (a v3 sync task, charged once at the lightning price), its limits (25 MB, the async
// duration limit rather than the sync one) and refusals before any charge.
import { readFileSync, writeFileSync } from 'node:fs';
import { deflateSync } from 'node:zlib';
import { basename, dirname, join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { goforward, GOFORWARD_STARTS, silence, textAsWav } from '../test-support/audio.ts';
import { databaseKinds, useHarness, type Harness } from '../test-support/harness.ts';

const GOFORWARD_TEXT = 'go forward ten meters';
/** SCRIBE_ASYNC_MAX_SECONDS of the test server: above the sync limit (300 s), so the two can be told apart. */
const ASYNC_MAX_SECONDS = 330;

type Fields = Record<string, string | string[]>;

async function transcribe(h: Harness, apiKey: string, path: string, fields: Fields = {}) {
  const form = new FormData();
  form.set('model', 'service-transcribe');
  for (const [name, value] of Object.entries(fields)) {
    if (Array.isArray(value)) {
      form.delete(name);
      for (const item of value) form.append(name, item);
    } else {
      form.set(name, value);
    }
  }
  form.set('file', new Blob([readFileSync(path)]), basename(path));
  return h.v3(apiKey, 'POST', '/v3/audio/transcriptions', { form });
}

async function balanceOf(h: Harness, accountId: string): Promise<number> {
  const row = await h.db('accounts').where({ id: accountId }).first();
  return Number(row.balance_minor);
}

function assertGoforwardWords(words: { word: string; start: number; end: number }[]) {
  assert.equal(
    words.map((w) => w.word),
    GOFORWARD_TEXT.split(' '),
  );
  words.forEach((w, i) => {
    assert.ok(Math.abs(w.start - GOFORWARD_STARTS[i]!) <= 0.1, `word ${i} starts at ${w.start}`);
    assert.ok(w.end >= w.start, `word ${i} ends at ${w.end}, before its start`);
    assert.equal(Object.keys(w).sort(), ['end', 'start', 'word'], "OpenAI's word fields only");
  });
}

for (const kind of databaseKinds) {
  const test = suite(`OpenAI audio transcriptions (${kind})`);
  const harness = useHarness(test, kind, {
    env: {
      SCRIBE_WORKERS: '1',
      SCRIBE_JOB_POLL_MS: '200',
      SCRIBE_RATE_LIMIT_RPS: '1000',
      SCRIBE_ASYNC_MAX_SECONDS: String(ASYNC_MAX_SECONDS),
    },
  });

  test('json (the default): {text}; the task is a completed v3 sync task charged once at the lightning price', async () => {
    const h = harness();
    const account = await h.provision({ balance: 10 });
    const before = await balanceOf(h, account.id);
    const reply = await transcribe(h, account.apiKey, goforward('wav'), { language: 'en' });
    assert.is(reply.status, 200, reply.text);
    assert.match(reply.headers.get('content-type')!, /^application\/json/);
    assert.equal(reply.body, { text: GOFORWARD_TEXT });

    const listed = await h.v3(account.apiKey, 'GET', '/v3/transcriptions/list');
    assert.is(listed.status, 200, listed.text);
    assert.is(listed.body.data.length, 1);
    const task = listed.body.data[0];
    assert.is(task.mode, 'sync');
    assert.is(task.priority, 'lightning');
    assert.is(task.status, 'completed');
    assert.is(task.source_type, 'upload');
    assert.is(task.filename, 'goforward.wav');
    assert.is(task.language, 'en');
    assert.is(task.result.text, GOFORWARD_TEXT);

    const row = await h.db('transcriptions').where({ id: task.id }).first();
    const minutes = Math.ceil(Number(row.duration_seconds) / 60);
    const price = minutes * h.app.config.prices.transcribe_lightning;
    assert.is(task.minutes_billed, minutes);
    const entries = await h.db('ledger_entries').where({ account_id: account.id });
    const captures = entries.filter((e: { kind: string }) => e.kind === 'capture');
    assert.is(captures.length, 1, JSON.stringify(entries));
    assert.is(Number(captures[0].amount_minor), -price);
    assert.is(await balanceOf(h, account.id), before - price);
    const settled = await h.db('accounts').where({ id: account.id }).first();
    assert.is(Number(settled.reserved_minor), 0, 'the reservation is released');
  });

  test('verbose_json: words with their times and segments, as asked by timestamp_granularities[]', async () => {
    const h = harness();
    const account = await h.provision({ balance: 10 });
    const both = await transcribe(h, account.apiKey, goforward('mp3'), {
      model: 'whisper-1',
      language: 'en',
      response_format: 'verbose_json',
      'timestamp_granularities[]': ['word', 'segment'],
    });
    assert.is(both.status, 200, both.text);
    assert.is(both.body.task, 'transcribe');
    assert.is(both.body.language, 'en');
    assert.is(both.body.text, GOFORWARD_TEXT);
    assert.ok(both.body.duration > 2 && both.body.duration < 3, `duration ${both.body.duration}`);
    assertGoforwardWords(both.body.words);
    assert.equal(both.body.segments.length, 1);
    const [segment] = both.body.segments;
    assert.is(segment.id, 0);
    assert.is(segment.text, GOFORWARD_TEXT);
    assert.is(segment.start, both.body.words[0].start);
    assert.is(segment.end, both.body.words.at(-1).end);
    // Every field of OpenAI's segment, with what the engine knows (the contract's descriptions say so).
    const textBytes = Buffer.byteLength(GOFORWARD_TEXT);
    assert.equal(
      { ...segment, compression_ratio: undefined, avg_logprob: undefined },
      {
        id: 0,
        seek: Math.round(segment.start * 100),
        start: segment.start,
        end: segment.end,
        text: GOFORWARD_TEXT,
        tokens: [],
        temperature: 0,
        avg_logprob: undefined,
        compression_ratio: undefined,
        no_speech_prob: 0,
      },
    );
    // The mean log of PocketSphinx's word confidences: below 0 (no word is certain), above the floor of 1e-6.
    assert.ok(segment.avg_logprob < 0 && segment.avg_logprob > Math.log(1e-6), String(segment.avg_logprob));
    assert.is(segment.compression_ratio, Number((textBytes / deflateSync(GOFORWARD_TEXT).length).toFixed(4)));

    // Without timestamp_granularities[]: segments only (OpenAI's default); with `word` alone: words only.
    const defaults = await transcribe(h, account.apiKey, goforward('wav'), {
      language: 'en-US',
      response_format: 'verbose_json',
    });
    assert.is(defaults.status, 200, defaults.text);
    assert.is(defaults.body.language, 'en', 'the primary subtag of en-US');
    assert.is(defaults.body.words, undefined);
    assert.is(defaults.body.segments.length, 1);
    const words = await transcribe(h, account.apiKey, goforward('ogg'), {
      language: 'en',
      response_format: 'verbose_json',
      'timestamp_granularities[]': ['word'],
    });
    assert.is(words.status, 200, words.text);
    assert.is(words.body.segments, undefined);
    assertGoforwardWords(words.body.words);
  });

  test('text, srt and vtt: the transcript as text with their content types', async () => {
    const h = harness();
    const account = await h.provision({ balance: 10 });
    const text = await transcribe(h, account.apiKey, goforward('wav'), { language: 'en', response_format: 'text' });
    assert.is(text.status, 200, text.text);
    assert.match(text.headers.get('content-type')!, /^text\/plain; charset=utf-8/);
    assert.is(text.text, `${GOFORWARD_TEXT}\n`);
    const srt = await transcribe(h, account.apiKey, goforward('wav'), { language: 'en', response_format: 'srt' });
    assert.is(srt.status, 200, srt.text);
    assert.match(srt.headers.get('content-type')!, /^application\/x-subrip; charset=utf-8/);
    assert.match(srt.text, /^1\n00:00:00,4\d0 --> 00:00:02,[01]\d0\ngo forward ten meters\n$/);
    const vtt = await transcribe(h, account.apiKey, goforward('wav'), {
      model: 'whisper-1',
      language: 'en',
      response_format: 'vtt',
    });
    assert.is(vtt.status, 200, vtt.text);
    assert.match(vtt.headers.get('content-type')!, /^text\/vtt; charset=utf-8/);
    assert.match(vtt.text, /^WEBVTT\n\n1\n00:00:00\.4\d0 --> 00:00:02\.[01]\d0\ngo forward ten meters\n$/);
  });

  test('no language: the engine’s only language (PocketSphinx: en), as an OpenAI caller that omits it expects', async () => {
    const h = harness();
    const account = await h.provision({ balance: 10 });
    const reply = await transcribe(h, account.apiKey, goforward('wav'), { response_format: 'verbose_json' });
    assert.is(reply.status, 200, reply.text);
    assert.is(reply.body.language, 'en');
    assert.is(reply.body.text, GOFORWARD_TEXT);
  });

  test('GET /v3/models/{id}: one model of the list; an unknown id is 404 model_not_found', async () => {
    const h = harness();
    const account = await h.provision({ balance: 10 });
    const list = await h.v3(account.apiKey, 'GET', '/v3/models');
    for (const model of list.body.data) {
      const one = await h.v3(account.apiKey, 'GET', `/v3/models/${model.id}`);
      assert.is(one.status, 200, one.text);
      assert.equal(one.body, model);
    }
    const unknown = await h.v3(account.apiKey, 'GET', '/v3/models/gpt-4o');
    assert.equal([unknown.status, unknown.body.error.code, unknown.body.error.param], [404, 'model_not_found', 'id']);
  });

  test('refused before any charge: unknown model 404, an unsupported language, not audio, bad fields, no funds', async () => {
    const h = harness();
    const account = await h.provision({ balance: 10 });
    const before = await balanceOf(h, account.id);
    const model = await transcribe(h, account.apiKey, goforward('wav'), { model: 'whisper-2', language: 'en' });
    assert.is(model.status, 404, model.text);
    assert.is(model.body.error.code, 'model_not_found');
    assert.is(model.body.error.param, 'model');
    const ru = await transcribe(h, account.apiKey, goforward('wav'), { language: 'ru' });
    assert.is(ru.status, 400, ru.text);
    assert.is(ru.body.error.code, 'unsupported_language');
    assert.is(ru.body.error.param, 'language');
    const notAudio = await transcribe(h, account.apiKey, textAsWav(), { language: 'en' });
    assert.is(notAudio.status, 400, notAudio.text);
    assert.is(notAudio.body.error.code, 'unsupported_format');
    assert.is(notAudio.body.error.param, 'file');
    const format = await transcribe(h, account.apiKey, goforward('wav'), { language: 'en', response_format: 'xml' });
    assert.is(format.status, 400, format.text);
    assert.is(format.body.error.param, 'response_format');
    const granularity = await transcribe(h, account.apiKey, goforward('wav'), {
      language: 'en',
      'timestamp_granularities[]': ['word', 'letter'],
    });
    assert.is(granularity.status, 400, granularity.text);
    assert.match(granularity.body.error.param, /^timestamp_granularities\[\]/);
    const noFile = await h.v3(account.apiKey, 'POST', '/v3/audio/transcriptions', {
      form: (() => {
        const form = new FormData();
        form.set('model', 'whisper-1');
        return form;
      })(),
    });
    assert.is(noFile.status, 400, noFile.text);
    assert.is(noFile.body.error.code, 'missing_parameter');
    assert.is(noFile.body.error.param, 'file');
    assert.is(await balanceOf(h, account.id), before);
    assert.is((await h.db('transcriptions').where({ account_id: account.id })).length, 0);
    assert.is((await h.db('reservations').where({ account_id: account.id })).length, 0);

    const poor = await h.provision({ balance: 0 });
    const unpaid = await transcribe(h, poor.apiKey, goforward('wav'), { language: 'en' });
    assert.is(unpaid.status, 402, unpaid.text);
    assert.is(unpaid.body.error.code, 'insufficient_balance');
    assert.is((await h.db('transcriptions').where({ account_id: poor.id })).length, 0);
  });

  test('limits: 25 MB; the async duration limit, not the sync one (5 minutes)', async () => {
    const h = harness();
    const account = await h.provision({ balance: 100 });
    const big = join(dirname(goforward('wav')), 'over-25mb.wav');
    writeFileSync(big, Buffer.alloc(25 * 1024 * 1024 + 1));
    const tooLarge = await transcribe(h, account.apiKey, big, { language: 'en' });
    assert.is(tooLarge.status, 400, tooLarge.text);
    assert.is(tooLarge.body.error.code, 'file_too_large');
    assert.is(tooLarge.body.error.param, 'file');
    const tooLong = await transcribe(h, account.apiKey, silence(ASYNC_MAX_SECONDS + 5), { language: 'en' });
    assert.is(tooLong.status, 400, tooLong.text);
    assert.is(tooLong.body.error.code, 'duration_exceeded');
    assert.is((await h.db('transcriptions').where({ account_id: account.id })).length, 0);

    // Over the sync limit but within the async one: transcribed (silence has no words) and billed for 6 minutes.
    const long = await transcribe(h, account.apiKey, silence(301), { language: 'en', response_format: 'verbose_json' });
    assert.is(long.status, 200, long.text);
    assert.is(long.body.text, '');
    assert.ok(Math.abs(long.body.duration - 301) < 0.5, `duration ${long.body.duration}`);
    assert.equal(long.body.segments, []);
    const [task] = (await h.v3(account.apiKey, 'GET', '/v3/transcriptions/list')).body.data;
    assert.is(task.minutes_billed, 6);
  });

  test.run();
}
