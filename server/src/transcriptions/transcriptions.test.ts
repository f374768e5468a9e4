// The v3 transcription pipeline through the API, with the real engine, real ffmpeg and a real database: sync and
// async (upload and link), the result, billing, refusals before any charge, cancellation and the concurrency limit.
import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { basename } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { goforward, GOFORWARD_STARTS, silence, textAsWav } from '../test-support/audio.ts';
import { databaseKinds, useHarness, type Harness } from '../test-support/harness.ts';
import { mediaServer } from '../test-support/media-server.ts';

const MAX_JOBS = 3;

async function upload(
  h: Harness,
  apiKey: string,
  path: string,
  fields: Record<string, string> = {},
  mode: 'sync' | 'async' | 'upload' = 'sync',
) {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.set(name, value);
  form.set('file', new Blob([readFileSync(path)]), basename(path));
  const target = mode === 'upload' ? '/v3/transcriptions/async/upload' : `/v3/transcriptions/${mode}/create`;
  return h.v3(apiKey, 'POST', target, { form });
}

/** Polls the status until a final state; asserts that progress never goes down on the way. */
async function final(h: Harness, apiKey: string, id: string, timeoutMs = 60_000) {
  const until = Date.now() + timeoutMs;
  let last = 0;
  for (;;) {
    const reply = await h.v3(apiKey, 'GET', `/v3/transcriptions/status/${id}`);
    assert.is(reply.status, 200, reply.text);
    const task = reply.body.data;
    assert.ok(task.progress >= last, `progress went down: ${last} → ${task.progress}`);
    last = task.progress;
    if (['completed', 'failed', 'cancelled'].includes(task.status)) return task;
    if (Date.now() > until) throw new Error(`task ${id} still ${task.status} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function balanceOf(h: Harness, accountId: string): Promise<number> {
  const row = await h.db('accounts').where({ id: accountId }).first();
  return Number(row.balance_minor);
}

for (const kind of databaseKinds) {
  const test = suite(`transcriptions (${kind})`);
  const harness = useHarness(test, kind, {
    env: {
      SCRIBE_URL_ALLOW_HOSTS: '127.0.0.1',
      SCRIBE_MAX_CONCURRENT_JOBS: String(MAX_JOBS),
      SCRIBE_JOB_LEASE_MS: '1500',
      SCRIBE_JOB_POLL_MS: '200',
      SCRIBE_WORKERS: '2',
      SCRIBE_RATE_LIMIT_RPS: '1000',
    },
  });
  let media: { url: string; server: Server };
  test.before(async () => {
    media = await mediaServer();
  });
  test.after(() => {
    media.server.closeAllConnections();
    media.server.close();
  });

  test('sync: 200 ready with progress 0, then completed with the exact words, their times and one capture', async () => {
    const h = harness();
    const account = await h.provision({ balance: 10 });
    const before = await balanceOf(h, account.id);
    const created = await upload(h, account.apiKey, goforward('wav'), { language: 'en' });
    assert.is(created.status, 200, created.text);
    const task = created.body.data;
    assert.is(task.status, 'ready');
    assert.is(task.progress, 0);
    assert.is(task.mode, 'sync');
    assert.is(task.source_type, 'upload');
    assert.is(task.priority, 'lightning');
    assert.is(task.filename, 'goforward.wav');
    const done = await final(h, account.apiKey, task.id);
    assert.is(done.status, 'completed', JSON.stringify(done.error));
    assert.is(done.result.text, 'go forward ten meters');
    assert.equal(
      done.result.words.map((w: { word: string }) => w.word),
      ['go', 'forward', 'ten', 'meters'],
    );
    done.result.words.forEach((w: { start: number; confidence?: number }, i: number) => {
      assert.ok(Math.abs(w.start - GOFORWARD_STARTS[i]!) <= 0.1, `word ${i} starts at ${w.start}`);
      assert.is(w.confidence, undefined, 'confidence only when output.confidence is true');
    });
    assert.is(done.progress, 100);
    assert.is(done.minutes_billed, 1);
    assert.is(done.cost, 2);
    // Billing: exactly one capture of 1 minute × the lightning price, the reservation released.
    const entries = await h.db('ledger_entries').where({ account_id: account.id }).orderBy('created_at');
    const captures = entries.filter((e: { kind: string }) => e.kind === 'capture');
    assert.is(captures.length, 1);
    assert.is(Number(captures[0].amount_minor), -200);
    assert.is(await balanceOf(h, account.id), before - 200);
    const account2 = await h.db('accounts').where({ id: account.id }).first();
    assert.is(Number(account2.reserved_minor), 0);
  });

  test('the same audio as mp3, ogg and m4a gives the same text; output options choose words and confidence', async () => {
    const h = harness();
    const account = await h.provision({ balance: 10 });
    for (const ext of ['mp3', 'ogg', 'm4a']) {
      const created = await upload(h, account.apiKey, goforward(ext), {
        language: 'en',
        output: JSON.stringify(ext === 'mp3' ? { word_timestamps: false } : { confidence: true }),
      });
      assert.is(created.status, 200, created.text);
      const done = await final(h, account.apiKey, created.body.data.id);
      assert.is(done.result.text, 'go forward ten meters', ext);
      if (ext === 'mp3') {
        assert.is(done.result.words, undefined);
        assert.equal(done.output, { format: 'json', word_timestamps: false });
      } else {
        for (const w of done.result.words) assert.ok(w.confidence >= 0 && w.confidence <= 1, `${ext} ${w.confidence}`);
      }
    }
  });

  test('refused before any charge: unsupported language (the default ru), not audio, over 5 minutes, bad output', async () => {
    const h = harness();
    const account = await h.provision({ balance: 10 });
    const before = await balanceOf(h, account.id);
    const ru = await upload(h, account.apiKey, goforward('wav'));
    assert.is(ru.status, 400, ru.text);
    assert.is(ru.body.error.code, 'unsupported_language');
    assert.is(ru.body.error.param, 'language');
    // The request named no language: the message says the default was applied and what to send instead.
    assert.is(
      ru.body.error.message,
      'No language was sent, so the default ru was applied; this server does not transcribe it. ' +
        'Supported: en. Send the language of the speech, for example language=en.',
    );
    const german = await upload(h, account.apiKey, goforward('wav'), { language: 'de' });
    assert.is(german.status, 400, german.text);
    assert.is(
      german.body.error.message,
      "The language de is not supported by this server's transcription engine. " +
        'Supported: en. Send the language of the speech, for example language=en.',
    );
    const text = await upload(h, account.apiKey, textAsWav(), { language: 'en' });
    assert.is(text.status, 400, text.text);
    assert.is(text.body.error.code, 'unsupported_format');
    assert.is(text.body.error.param, 'file');
    const long = await upload(h, account.apiKey, silence(301), { language: 'en' });
    assert.is(long.status, 400, long.text);
    assert.is(long.body.error.code, 'duration_exceeded');
    const output = await upload(h, account.apiKey, goforward('wav'), { language: 'en', output: '{"format":"srt"}' });
    assert.is(output.status, 400, output.text);
    assert.is(output.body.error.param, 'output.format');
    const diarization = await upload(h, account.apiKey, goforward('wav'), { language: 'en', diarization: 'yes' });
    assert.is(diarization.status, 400, diarization.text);
    assert.is(diarization.body.error.param, 'diarization');
    assert.is(await balanceOf(h, account.id), before);
    assert.is((await h.db('transcriptions').where({ account_id: account.id })).length, 0);
    assert.is((await h.db('reservations').where({ account_id: account.id })).length, 0);
  });

  test('sync with no funds: 402 insufficient_balance and no task', async () => {
    const h = harness();
    const account = await h.provision({ balance: 0 });
    const reply = await upload(h, account.apiKey, goforward('wav'), { language: 'en' });
    assert.is(reply.status, 402, reply.text);
    assert.is(reply.body.error.code, 'insufficient_balance');
    assert.is((await h.db('transcriptions').where({ account_id: account.id })).length, 0);
  });

  test('result: json, srt, vtt and txt of a completed task; 409 before completion', async () => {
    const h = harness();
    const account = await h.provision({ balance: 10 });
    const created = await upload(h, account.apiKey, goforward('wav'), { language: 'en' });
    const id = created.body.data.id;
    await final(h, account.apiKey, id);
    const json = await h.v3(account.apiKey, 'GET', `/v3/transcriptions/result/${id}`);
    assert.is(json.body.text, 'go forward ten meters');
    const srt = await h.v3(account.apiKey, 'GET', `/v3/transcriptions/result/${id}?format=srt`);
    assert.match(srt.text, /^1\n00:00:00,4\d0 --> 00:00:02,[01]\d0\ngo forward ten meters\n$/);
    const vtt = await h.v3(account.apiKey, 'GET', `/v3/transcriptions/result/${id}?format=vtt`);
    assert.match(vtt.text, /^WEBVTT\n\n1\n00:00:00\.4\d0 --> 00:00:02\.[01]\d0\ngo forward ten meters\n$/);
    const txt = await h.v3(account.apiKey, 'GET', `/v3/transcriptions/result/${id}?format=txt`);
    assert.is(txt.text, 'go forward ten meters\n');
    assert.match(txt.headers.get('content-type')!, /^text\/plain/);
    // `text` is the other name of `txt`; an unknown format is told the allowed ones.
    const text = await h.v3(account.apiKey, 'GET', `/v3/transcriptions/result/${id}?format=text`);
    assert.is(text.status, 200, text.text);
    assert.is(text.text, txt.text);
    assert.match(text.headers.get('content-type')!, /^text\/plain/);
    const unknown = await h.v3(account.apiKey, 'GET', `/v3/transcriptions/result/${id}?format=doc`);
    assert.is(unknown.status, 400, unknown.text);
    assert.equal(unknown.body.error, {
      type: 'invalid_request_error',
      code: 'invalid_parameter',
      message: 'format must be one of json, srt, vtt, txt, text.',
      param: 'format',
    });
    // The per-format operations answer exactly what the format query answers, each with its one media type.
    for (const [segment, query, type] of [
      ['json', 'json', /^application\/json/],
      ['srt', 'srt', /^application\/x-subrip/],
      ['vtt', 'vtt', /^text\/vtt/],
      ['text', 'txt', /^text\/plain/],
    ] as const) {
      const own = await h.v3(account.apiKey, 'GET', `/v3/transcriptions/result/${id}/${segment}`);
      const viaQuery = await h.v3(account.apiKey, 'GET', `/v3/transcriptions/result/${id}?format=${query}`);
      assert.is(own.status, 200, own.text);
      assert.is(own.text, viaQuery.text, segment);
      assert.match(own.headers.get('content-type')!, type);
    }

    const hanging = await h.v3(account.apiKey, 'POST', '/v3/transcriptions/async/create', {
      json: { url: `${media.url}/hang`, language: 'en' },
    });
    const early = await h.v3(account.apiKey, 'GET', `/v3/transcriptions/result/${hanging.body.transcription_id}`);
    assert.is(early.status, 409, early.text);
    assert.is(early.body.error.code, 'invalid_state');
    const earlySrt = await h.v3(
      account.apiKey,
      'GET',
      `/v3/transcriptions/result/${hanging.body.transcription_id}/srt`,
    );
    assert.is(earlySrt.status, 409, earlySrt.text);
    assert.is(earlySrt.body.error.code, 'invalid_state');
    await h.v3(account.apiKey, 'POST', `/v3/transcriptions/cancel/${hanging.body.transcription_id}`);
  });

  test('async by link: completed from a local server; private links 400 at create; 404 and a redirect to 169.254.169.254 fail download_failed', async () => {
    const h = harness();
    const account = await h.provision({ balance: 10 });
    const create = (url: string, language = 'en') =>
      h.v3(account.apiKey, 'POST', '/v3/transcriptions/async/create', { json: { url, language } });
    const ok = await create(`${media.url}/goforward.wav`);
    assert.is(ok.status, 202, ok.text);
    const done = await final(h, account.apiKey, ok.body.transcription_id);
    assert.is(done.status, 'completed', JSON.stringify(done.error));
    assert.is(done.result.text, 'go forward ten meters');
    assert.is(done.source_type, 'url');
    assert.is(done.mode, 'async');
    assert.is(done.priority, 'queue');
    assert.is(done.cost, 1);
    // A link to a private address is refused when the task is created, naming the setting that would allow it;
    // a public-looking link that redirects there is refused at download time.
    for (const url of [
      'http://10.0.0.1/audio.wav',
      'http://169.254.169.254/latest/meta-data/',
      'http://[::1]:8080/a.wav',
      'http://user:pw@127.0.0.2/a.wav?sig=abc',
    ]) {
      const refused = await create(url);
      assert.is(refused.status, 400, `${url}: ${refused.text}`);
      assert.is(refused.body.error.code, 'invalid_parameter', url);
      assert.is(refused.body.error.param, 'url', url);
      assert.match(refused.body.error.message, /SCRIBE_URL_ALLOW_HOSTS/, url);
      assert.not.match(refused.text, /pw@|sig=abc/, url);
    }
    for (const url of [
      `${media.url}/missing`,
      `${media.url}/redirect?to=${encodeURIComponent('http://169.254.169.254/latest/meta-data/')}`,
    ]) {
      const created = await create(url);
      assert.is(created.status, 202, created.text);
      const failed = await final(h, account.apiKey, created.body.transcription_id);
      assert.is(failed.status, 'failed', url);
      assert.is(failed.error.code, 'download_failed', url);
    }
    const ru = await create(`${media.url}/goforward.wav`, 'ru');
    const unsupported = await final(h, account.apiKey, ru.body.transcription_id);
    assert.is(unsupported.status, 'failed');
    assert.is(unsupported.error.code, 'unsupported_language');
    assert.match(unsupported.error.message, /^The language ru is not supported/);
    const omitted = await h.v3(account.apiKey, 'POST', '/v3/transcriptions/async/create', {
      json: { url: `${media.url}/goforward.wav` },
    });
    const defaulted = await final(h, account.apiKey, omitted.body.transcription_id);
    assert.is(defaulted.error.code, 'unsupported_language');
    assert.match(defaulted.error.message, /^No language was sent, so the default ru was applied; .* language=en\.$/);
    // Only the completed task was charged.
    const captures = await h.db('ledger_entries').where({ account_id: account.id, kind: 'capture' });
    assert.is(captures.length, 1);
  });

  test('async upload starts ready and completes', async () => {
    const h = harness();
    const account = await h.provision({ balance: 10 });
    const created = await upload(
      h,
      account.apiKey,
      goforward('flac'),
      { language: 'en', priority: 'lightning' },
      'async',
    );
    assert.is(created.status, 202, created.text);
    const done = await final(h, account.apiKey, created.body.transcription_id);
    assert.is(done.status, 'completed');
    assert.is(done.result.text, 'go forward ten meters');
    assert.is(done.source_type, 'upload');

    // The upload operation of its own: the same task; a JSON body is 415, a form without a file 400 naming file.
    const uploaded = await upload(
      h,
      account.apiKey,
      goforward('flac'),
      { language: 'en', priority: 'lightning' },
      'upload',
    );
    assert.is(uploaded.status, 202, uploaded.text);
    const uploadedDone = await final(h, account.apiKey, uploaded.body.transcription_id);
    assert.is(uploadedDone.status, 'completed');
    assert.is(uploadedDone.result.text, 'go forward ten meters');
    assert.is(uploadedDone.source_type, 'upload');
    const json = await h.v3(account.apiKey, 'POST', '/v3/transcriptions/async/upload', {
      json: { url: 'https://example.com/a.mp3' },
    });
    assert.is(json.status, 415, json.text);
    const form = new FormData();
    form.set('language', 'en');
    const noFile = await h.v3(account.apiKey, 'POST', '/v3/transcriptions/async/upload', { form });
    assert.is(noFile.status, 400, noFile.text);
    assert.is(noFile.body.error.param, 'file');
  });

  test('cancel: a downloading task is cancelled and its funds released; again, or a completed task → 409; foreign → 404', async () => {
    const h = harness();
    const account = await h.provision({ balance: 10 });
    const other = await h.provision({ balance: 10 });
    const created = await h.v3(account.apiKey, 'POST', '/v3/transcriptions/async/create', {
      json: { url: `${media.url}/hang`, language: 'en' },
    });
    const id = created.body.transcription_id;
    const foreign = await h.v3(other.apiKey, 'POST', `/v3/transcriptions/cancel/${id}`);
    assert.is(foreign.status, 404, foreign.text);
    const cancelled = await h.v3(account.apiKey, 'POST', `/v3/transcriptions/cancel/${id}`);
    assert.is(cancelled.status, 200, cancelled.text);
    assert.is(cancelled.body.data.status, 'cancelled');
    const again = await h.v3(account.apiKey, 'POST', `/v3/transcriptions/cancel/${id}`);
    assert.is(again.status, 409, again.text);
    assert.is(again.body.error.code, 'invalid_state');
    // It stays cancelled (the worker that was downloading lets go) and nothing is reserved or charged.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    assert.is((await final(h, account.apiKey, id)).status, 'cancelled');
    const row = await h.db('accounts').where({ id: account.id }).first();
    assert.is(Number(row.reserved_minor), 0);
    assert.is((await h.db('ledger_entries').where({ account_id: account.id, kind: 'capture' })).length, 0);

    const sync = await upload(h, account.apiKey, goforward('wav'), { language: 'en' });
    await final(h, account.apiKey, sync.body.data.id);
    const late = await h.v3(account.apiKey, 'POST', `/v3/transcriptions/cancel/${sync.body.data.id}`);
    assert.is(late.status, 409, late.text);
  });

  test(`concurrency: ${MAX_JOBS} unfinished tasks of an account, then 429 too_many_concurrent_jobs with Retry-After`, async () => {
    const h = harness();
    const account = await h.provision({ balance: 10 });
    const ids: string[] = [];
    for (let i = 0; i < MAX_JOBS; i += 1) {
      const created = await h.v3(account.apiKey, 'POST', '/v3/transcriptions/async/create', {
        json: { url: `${media.url}/hang`, language: 'en' },
      });
      assert.is(created.status, 202, created.text);
      ids.push(created.body.transcription_id);
    }
    const refused = await upload(h, account.apiKey, goforward('wav'), { language: 'en' });
    assert.is(refused.status, 429, refused.text);
    assert.is(refused.body.error.code, 'too_many_concurrent_jobs');
    assert.ok(Number(refused.headers.get('retry-after')) >= 1);
    for (const id of ids) await h.v3(account.apiKey, 'POST', `/v3/transcriptions/cancel/${id}`);
    const accepted = await upload(h, account.apiKey, goforward('wav'), { language: 'en' });
    assert.is(accepted.status, 200, accepted.text);
    await final(h, account.apiKey, accepted.body.data.id);
  });

  test.run();
}
