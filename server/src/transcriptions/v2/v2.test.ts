// v2 transcriptions through the API with signed requests, the real engine, real ffmpeg and a real database: create
// from an upload or a link, the status mapping while it runs, result links that work without headers (text, JSON and
// a real PDF read back with poppler's pdftotext), refused links, validation in the v2 error shape, billing once.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { basename } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { goforward, GOFORWARD_STARTS } from '../../test-support/audio.ts';
import { databaseKinds, useHarness, type Harness, type Provisioned } from '../../test-support/harness.ts';
import { mediaServer } from '../../test-support/media-server.ts';
import { createResultLinks } from './result-links.ts';
import { singleKey } from '../../secrets/secret-box.ts';
import { originOf, parseTerms } from './v2-handlers.ts';

function create(h: Harness, account: Provisioned, fields: Record<string, string>, file?: string) {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.set(name, value);
  if (file) form.set('file', new Blob([readFileSync(file)]), basename(file));
  return h.signed(account.signer, 'POST', '/v2/transcriptions', { form });
}

/** Polls until a final state; returns it and every v2 status seen on the way. */
async function final(h: Harness, account: Provisioned, id: string, timeoutMs = 60_000) {
  const seen = new Set<string>();
  const until = Date.now() + timeoutMs;
  for (;;) {
    const reply = await h.signed(account.signer, 'GET', `/v2/transcriptions/${id}`);
    assert.is(reply.status, 200, reply.text);
    const data = reply.body.data;
    seen.add(data.status);
    if (['completed', 'failed', 'cancelled'].includes(data.status)) return { data, seen };
    assert.is(data.results, null, 'no links before completion');
    if (Date.now() > until) throw new Error(`v2 transcription ${id} still ${data.status} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A result link as a path on the test server (the links are absolute, on the host the client called). */
const pathOf = (h: Harness, link: string) => {
  assert.ok(link.startsWith(`${h.baseUrl}/v2/results/`), link);
  return link.slice(h.baseUrl.length);
};

for (const kind of databaseKinds) {
  const test = suite(`v2 transcriptions (${kind})`);
  const harness = useHarness(test, kind, {
    env: {
      SCRIBE_URL_ALLOW_HOSTS: '127.0.0.1',
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

  test('upload: 201, pending → completed with links, one speaker, terms kept, billed once at the queue price', async () => {
    const h = harness();
    const account = await h.provision({ balance: 10 });
    const created = await create(
      h,
      account,
      { language: 'en', terms: ' forward , meters,, ', prompt: 'Summarise.' },
      goforward('wav'),
    );
    assert.is(created.status, 201, created.text);
    const id = created.body.transcription_id;
    const { data, seen } = await final(h, account, id);
    assert.is(data.status, 'completed', data.error_message);
    assert.ok(
      [...seen].every((s) => ['pending', 'processing', 'completed'].includes(s)),
      [...seen].join(),
    );
    assert.is(data.progress, 100);
    assert.ok(data.duration_seconds > 2 && data.duration_seconds < 3, String(data.duration_seconds));
    assert.is(data.duration_minutes, Math.round((data.duration_seconds / 60) * 100) / 100);
    assert.is(data.minutes_billed, 1);
    assert.is(data.cost, 1, 'one minute at the queue price (1.00)');
    assert.is(data.priority_type, 'queue');
    assert.is(data.source_type, 'upload');
    assert.is(data.filename, 'goforward.wav');
    assert.is(data.file_size, readFileSync(goforward('wav')).length);
    assert.is(data.language, 'en');
    assert.equal(data.recognized_speakers, [{ id: 'SPEAKER_00', name: 'Speaker 1' }]);
    assert.is(data.ai_analysis, null, 'no chat engine yet: documented as null');
    assert.is(data.error_message, null);
    assert.ok(data.started_at && data.completed_at && data.billed_at);
    const row = await h.db('transcriptions').where({ id }).first();
    assert.equal(JSON.parse(row.terms), ['forward', 'meters']);
    assert.is(row.ai_prompt, 'Summarise.');
    assert.is(row.api_version, 'v2');
    const captures = await h.db('ledger_entries').where({ account_id: account.id, kind: 'capture' });
    assert.is(captures.length, 1);
    assert.is(Number(captures[0].amount_minor), -100);

    // The links need no headers: plain text, the v3 result JSON and a PDF whose text is the transcript.
    const text = await h.request('GET', pathOf(h, data.results.text));
    assert.is(text.status, 200, text.text);
    assert.is(text.text, 'Speaker 1: go forward ten meters\n');
    assert.is(text.headers.get('content-disposition'), `attachment; filename="${id}.txt"`);
    const json = await h.request('GET', pathOf(h, data.results.json));
    assert.is(json.status, 200, json.text);
    assert.is(json.body.text, 'go forward ten meters');
    json.body.words.forEach((w: { start: number }, i: number) =>
      assert.ok(Math.abs(w.start - GOFORWARD_STARTS[i]!) <= 0.1, `word ${i} at ${w.start}`),
    );
    assert.is(json.body.speakers.length, 1);
    await h.request('GET', pathOf(h, data.results.pdf)); // contract check of the binary answer
    const pdf = await fetch(data.results.pdf);
    assert.is(pdf.status, 200);
    assert.is(pdf.headers.get('content-type'), 'application/pdf');
    const bytes = Buffer.from(await pdf.arrayBuffer());
    assert.is(bytes.subarray(0, 5).toString(), '%PDF-');
    const extracted = execFileSync('pdftotext', ['-', '-'], { input: bytes }).toString();
    assert.match(extracted, /Speaker 1 \[00:00:00\]: go forward ten meters/);
    assert.match(extracted, /Transcript: goforward\.wav/);
  });

  test('links: a tampered or foreign signature and an expired link are 403, a missing one 400, an unknown id 404', async () => {
    const h = harness();
    const account = await h.provision({ balance: 10 });
    const created = await create(h, account, { language: 'en' }, goforward('wav'));
    const id = created.body.transcription_id;
    const { data } = await final(h, account, id);
    const link = new URL(data.results.pdf);

    const tampered = await h.request(
      'GET',
      `${link.pathname}?expires=${link.searchParams.get('expires')}&signature=${'0'.repeat(64)}`,
    );
    assert.is(tampered.status, 403);
    assert.equal(tampered.body, { error: 'FORBIDDEN', message: 'Invalid link signature.', errors: {} });
    // The text link's signature does not open the PDF, and a longer expiry is not covered by the signature.
    const swapped = new URL(data.results.text);
    const otherFormat = await h.request('GET', `${link.pathname}${swapped.search}`);
    assert.is(otherFormat.status, 403);
    const extended = await h.request(
      'GET',
      `${link.pathname}?expires=${Number(link.searchParams.get('expires')) + 3600}&signature=${link.searchParams.get('signature')}`,
    );
    assert.is(extended.status, 403);

    // A link signed with the server's key but already expired (issued two hours ago with the 1 h lifetime).
    const links = createResultLinks(singleKey(h.app.config.secretKey!), h.app.config.resultLinkTtlSeconds);
    const old = links.issue(h.baseUrl, id, Math.floor(Date.now() / 1000) - 7200);
    const expired = await h.request('GET', pathOf(h, old.text));
    assert.is(expired.status, 403);
    assert.is(expired.body.message, 'This link has expired.');

    const missing = await h.request('GET', link.pathname);
    assert.is(missing.status, 400);
    assert.is(missing.body.error, 'VALIDATION_ERROR');
    assert.ok('expires' in missing.body.errors || 'signature' in missing.body.errors, missing.text);

    const unknownId = '00000000-0000-4000-8000-000000000000';
    const unknown = await h.request('GET', pathOf(h, links.issue(h.baseUrl, unknownId).json));
    assert.is(unknown.status, 404);
    assert.is(unknown.body.error, 'NOT_FOUND');
  });

  test('one file per operation: /v2/results/{id}.txt|.json|.pdf with a link’s query answer its bytes; another format’s query is 403', async () => {
    const h = harness();
    const account = await h.provision({ balance: 10 });
    const created = await create(h, account, { language: 'en' }, goforward('wav'));
    const id = created.body.transcription_id;
    const { data } = await final(h, account, id);
    const files = [
      { format: 'text', ext: 'txt', type: 'text/plain; charset=utf-8' },
      { format: 'json', ext: 'json', type: 'application/json; charset=utf-8' },
      { format: 'pdf', ext: 'pdf', type: 'application/pdf' },
    ] as const;
    for (const { format, ext, type } of files) {
      const link = new URL(data.results[format]);
      const checked = await h.request('GET', `/v2/results/${id}.${ext}${link.search}`); // the contract's check
      assert.is(checked.status, 200, `${ext}: ${checked.text}`);
      const [byLink, byOperation] = await Promise.all([
        fetch(link),
        fetch(`${h.baseUrl}/v2/results/${id}.${ext}${link.search}`),
      ]);
      assert.is(byOperation.headers.get('content-type'), type, ext);
      assert.is(byOperation.headers.get('content-disposition'), `attachment; filename="${id}.${ext}"`);
      const [linked, operated] = [await byLink.arrayBuffer(), await byOperation.arrayBuffer()];
      if (format === 'pdf') {
        // The PDF carries its creation time: compare the text it holds.
        const text = (bytes: ArrayBuffer) =>
          execFileSync('pdftotext', ['-', '-'], { input: Buffer.from(bytes) }).toString();
        assert.is(text(operated), text(linked));
        assert.match(text(operated), /go forward ten meters/);
      } else assert.equal(Buffer.from(operated), Buffer.from(linked), ext);
    }
    // The signature names the format: the text link's query does not open the PDF or the JSON.
    const textQuery = new URL(data.results.text).search;
    for (const ext of ['pdf', 'json']) {
      const refused = await h.request('GET', `/v2/results/${id}.${ext}${textQuery}`);
      assert.is(refused.status, 403, ext);
      assert.equal(refused.body, { error: 'FORBIDDEN', message: 'Invalid link signature.', errors: {} });
    }
    const missing = await h.request('GET', `/v2/results/${id}.txt`);
    assert.is(missing.status, 400);
    assert.is(missing.body.error, 'VALIDATION_ERROR');
  });

  test('link source: completed from a local server; a 404 link fails with its message; the default language fails', async () => {
    const h = harness();
    const account = await h.provision({ balance: 10 });
    const fromUrl = await create(h, account, {
      source_url: `${media.url}/goforward.wav`,
      language: 'en',
      priority: 'lightning',
    });
    assert.is(fromUrl.status, 201, fromUrl.text);
    const done = await final(h, account, fromUrl.body.transcription_id);
    assert.is(done.data.status, 'completed', done.data.error_message);
    assert.is(done.data.source_type, 'url');
    assert.is(done.data.filename, 'goforward.wav');
    assert.is(done.data.priority_type, 'lightning');
    assert.is(done.data.cost, 2);

    const missing = await create(h, account, { source_url: `${media.url}/missing.mp3`, language: 'en' });
    assert.is(missing.status, 201, missing.text);
    const failed = await final(h, account, missing.body.transcription_id);
    assert.is(failed.data.status, 'failed');
    assert.match(failed.data.error_message, /404/);
    assert.is(failed.data.results, null);
    assert.is(failed.data.billed_at, null);
    assert.is(failed.data.duration_seconds, null);

    // The contract's default language is ru, which the embedded engine does not have.
    const russian = await create(h, account, {}, goforward('wav'));
    assert.is(russian.status, 201, russian.text);
    const refused = await final(h, account, russian.body.transcription_id);
    assert.is(refused.data.status, 'failed');
    assert.is(refused.data.language, 'ru');
    // It says the default was applied (the request named no language) and what to send instead.
    assert.match(refused.data.error_message, /^No language was sent, so the default ru was applied; /);
    assert.match(
      refused.data.error_message,
      /Supported: en\. Send the language of the speech, for example language=en\.$/,
    );
    const captures = await h.db('ledger_entries').where({ account_id: account.id, kind: 'capture' });
    assert.is(captures.length, 1, 'only the completed link task was charged');
  });

  test('validation in the v2 shape: no source, both sources, a non-http link, a private link; a foreign id is 404', async () => {
    const h = harness();
    const account = await h.provision({ balance: 10 });
    const none = await create(h, account, { language: 'en' });
    assert.is(none.status, 400, none.text);
    assert.equal(none.body, {
      error: 'VALIDATION_ERROR',
      message: 'Either file or source_url is required.',
      errors: { file: ['Either file or source_url is required.'] },
    });
    const both = await create(h, account, { source_url: `${media.url}/goforward.wav` }, goforward('wav'));
    assert.is(both.status, 400, both.text);
    assert.equal(both.body.errors, { source_url: ['Give either file or source_url, not both.'] });
    const ftp = await create(h, account, { source_url: 'ftp://example.com/a.mp3' });
    assert.is(ftp.status, 400, ftp.text);
    assert.ok('source_url' in ftp.body.errors, ftp.text);
    const metadata = await create(h, account, { source_url: 'http://169.254.169.254/latest/meta-data/' });
    assert.is(metadata.status, 400, metadata.text);
    assert.is(metadata.body.error, 'VALIDATION_ERROR');
    assert.match(String(metadata.body.errors.source_url), /private, loopback or link-local.*SCRIBE_URL_ALLOW_HOSTS/);
    assert.is(
      await h
        .db('transcriptions')
        .where({ account_id: account.id })
        .count({ n: '*' })
        .first()
        .then((r) => Number(r!.n)),
      0,
    );

    const created = await create(h, account, { language: 'en' }, goforward('wav'));
    const other = await h.provision({ balance: 10 });
    const foreign = await h.signed(other.signer, 'GET', `/v2/transcriptions/${created.body.transcription_id}`);
    assert.is(foreign.status, 404);
    assert.is(foreign.body.error, 'NOT_FOUND');
    await final(h, account, created.body.transcription_id);
  });

  test.run();
}

const units = suite('v2 helpers');

units('terms: comma-separated, blanks ignored; none is undefined', () => {
  assert.equal(parseTerms(' Scribe, diarization ,, HMAC '), ['Scribe', 'diarization', 'HMAC']);
  assert.is(parseTerms(' , '), undefined);
  assert.is(parseTerms(undefined), undefined);
});

units('link origin: SCRIBE_PUBLIC_URL wins, else the Host header, else the fallback for a missing or odd host', () => {
  assert.is(originOf('https://api.example.com/', 'evil.example', 'http://127.0.0.1:8080'), 'https://api.example.com');
  assert.is(originOf(undefined, 'localhost:8080', 'http://127.0.0.1:8080'), 'http://localhost:8080');
  assert.is(originOf(undefined, 'a b/c', 'http://127.0.0.1:8080'), 'http://127.0.0.1:8080');
  assert.is(originOf(undefined, undefined, 'http://127.0.0.1:8080'), 'http://127.0.0.1:8080');
});

units('result links verify, expire and are bound to id, format, expiry and key', () => {
  const key = Buffer.alloc(32, 7);
  const links = createResultLinks(singleKey(key), 3600);
  const issued = links.issue('http://x', 'abc', 1000);
  const params = new URL(issued.pdf).searchParams;
  const expires = Number(params.get('expires'));
  const signature = params.get('signature')!;
  assert.is(expires, 4600);
  assert.match(signature, /^[0-9a-f]{64}$/);
  assert.is(links.check('abc', 'pdf', expires, signature, 2000), 'valid');
  assert.is(links.check('abc', 'pdf', expires, signature, 4601), 'expired');
  assert.is(links.check('abc', 'text', expires, signature, 2000), 'invalid');
  assert.is(links.check('abd', 'pdf', expires, signature, 2000), 'invalid');
  assert.is(links.check('abc', 'pdf', expires + 1, signature, 2000), 'invalid');
  assert.is(
    createResultLinks(singleKey(Buffer.alloc(32, 8)), 3600).check('abc', 'pdf', expires, signature, 2000),
    'invalid',
  );
});

units.run();
