// Version 2 signatures over multipart bodies and their nonces, on SQLite and PostgreSQL: an upload signed over the
// bytes it sends is accepted; one signed over another body (the empty body, or another file) is 401 and creates no
// task and reserves or charges nothing; a request sent again with its `X-Signature-Nonce` is 401, and a nonce on a
// version 1 signature is refused because that signature cannot cover it.
import { createHash } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { readFileSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { signV2Request } from '../../../client/src/sign-v2-request.ts';
import { sign } from '../../../conformance/core/v1-signature.ts';
import { goforward } from '../test-support/audio.ts';
import { databaseKinds, useHarness, type Harness, type Provisioned } from '../test-support/harness.ts';

const UPLOAD = '/v2/transcriptions';

function uploadForm(file: string, fields: Record<string, string> = { language: 'en' }): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.set(name, value);
  form.set('file', new Blob([readFileSync(file)]), 'audio.wav');
  return form;
}

async function send(request: Request) {
  const response = await fetch(request);
  const text = await response.text();
  return { status: response.status, text, body: text ? JSON.parse(text) : undefined };
}

/** A multipart upload whose version 2 signature covers `signedBodySha256` instead of the body it sends. */
async function forged(h: Harness, account: Provisioned, form: FormData, signedBodySha256: string) {
  const timestamp = String(Math.floor(Date.now() / 1000));
  const canonical = `${account.signer.publicKey}\n${timestamp}\nPOST\n${UPLOAD}\n${signedBodySha256}`;
  return send(
    new Request(`${h.baseUrl}${UPLOAD}`, {
      method: 'POST',
      body: form,
      headers: {
        'X-Public-Key': account.signer.publicKey,
        'X-Timestamp': timestamp,
        'X-Signature': sign(account.signer.secret, canonical),
        'X-Signature-Version': '2',
      },
    }),
  );
}

/**
 * Sends the headers of a 30 MB multipart upload and only its first bytes, and waits for an answer: one that comes
 * was given without reading the body (the rest is never sent). Undefined when none comes within the wait.
 */
function answerBeforeBody(
  baseUrl: string,
  headers: Record<string, string>,
  waitMs = 4000,
): Promise<{ status: number; body: string } | undefined> {
  return new Promise((resolve, reject) => {
    const boundary = 'scribe-early-refusal';
    const head = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.wav"\r\n\r\n`;
    const req = httpRequest(`${baseUrl}${UPLOAD}`, {
      method: 'POST',
      headers: {
        ...headers,
        'Content-Type': `multipart/form-data; boundary=${boundary}`,
        'Content-Length': String(30 * 1024 * 1024),
        'X-Signature-Version': '2',
      },
    });
    const timer = setTimeout(() => {
      req.destroy();
      resolve(undefined);
    }, waitMs);
    req.on('response', (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      response.on('end', () => {
        clearTimeout(timer);
        req.destroy();
        resolve({ status: response.statusCode!, body });
      });
    });
    req.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    req.write(head + 'x'.repeat(64 * 1024));
  });
}

async function nothingCreatedFor(h: Harness, account: Provisioned) {
  assert.is((await h.db('transcriptions').where({ account_id: account.id })).length, 0, 'a task was created');
  assert.is((await h.db('reservations').where({ account_id: account.id })).length, 0, 'funds were reserved');
  assert.is((await h.db('ledger_entries').where({ account_id: account.id })).length, 1, 'only the opening top-up');
}

for (const kind of databaseKinds) {
  const test = suite(`v2 signatures over multipart bodies and nonces (${kind})`);
  const harness = useHarness(test, kind, { env: { SCRIBE_RATE_LIMIT_RPS: '1000', SCRIBE_WORKERS: '1' } });

  test('a signed upload is refused before its body is read: no credentials, an unknown key, a stale timestamp', async () => {
    const h = harness();
    const account = await h.provision({ balance: 10 });
    const now = Math.floor(Date.now() / 1000);
    const cases: [string, Record<string, string>][] = [
      ['no credential headers', {}],
      [
        'an unknown public key',
        { 'X-Public-Key': 'pk_unknownunknownunknown', 'X-Timestamp': String(now), 'X-Signature': 'ab'.repeat(32) },
      ],
      [
        'a stale timestamp',
        { 'X-Public-Key': account.signer.publicKey, 'X-Timestamp': String(now - 3600), 'X-Signature': 'ab'.repeat(32) },
      ],
    ];
    for (const [name, headers] of cases) {
      const answer = await answerBeforeBody(h.baseUrl, headers);
      assert.ok(answer, `${name}: no answer until the body was sent`);
      assert.is(answer.status, 401, `${name}: ${answer.body}`);
      assert.is(JSON.parse(answer.body).error, 'UNAUTHORIZED', name);
    }
    await nothingCreatedFor(h, account);
  });

  test('a multipart upload signed over the body it sends (the client helper) is accepted', async () => {
    const h = harness();
    const account = await h.provision({ balance: 10 });
    const request = new Request(`${h.baseUrl}${UPLOAD}`, { method: 'POST', body: uploadForm(goforward('wav')) });
    const reply = await send(await signV2Request(request, { ...account.signer, version: 2, nonce: false }));
    assert.is(reply.status, 201, reply.text);
    // The harness signs with the same helper, over the form exactly as it sends it.
    const viaHarness = await h.signed(account.signer, 'POST', UPLOAD, {
      form: uploadForm(goforward('wav')),
      version: 2,
    });
    assert.is(viaHarness.status, 201, viaHarness.text);
    assert.is((await h.db('transcriptions').where({ account_id: account.id })).length, 2);
  });

  test('signed over the empty body, or over another file, a multipart upload is 401 with nothing created', async () => {
    const h = harness();
    const account = await h.provision({ balance: 10 });
    const emptyHash = createHash('sha256').digest('hex');
    const overEmpty = await forged(h, account, uploadForm(goforward('wav')), emptyHash);
    assert.is(overEmpty.status, 401, overEmpty.text);
    assert.equal(overEmpty.body, { error: 'UNAUTHORIZED', message: 'Invalid signature.', errors: {} });

    // A captured signed upload with its file swapped: the signature covered the original body's bytes.
    const original = new Request(`${h.baseUrl}${UPLOAD}`, { method: 'POST', body: uploadForm(goforward('wav')) });
    const originalHash = createHash('sha256')
      .update(Buffer.from(await original.arrayBuffer()))
      .digest('hex');
    const swapped = await forged(h, account, uploadForm(goforward('mp3')), originalHash);
    assert.is(swapped.status, 401, swapped.text);
    // And with the same file but another field (a different priority or prompt).
    const otherField = await forged(h, account, uploadForm(goforward('wav'), { language: 'ru' }), originalHash);
    assert.is(otherField.status, 401, otherField.text);
    await nothingCreatedFor(h, account);
  });

  test('a request sent again with its X-Signature-Nonce is 401; a new nonce is accepted', async () => {
    const h = harness();
    const account = await h.provision({ balance: 10 });
    const nonce = 'n-' + 'a'.repeat(30);
    const usage = () =>
      signV2Request(new Request(`${h.baseUrl}/v1/billing/usage`), {
        ...account.signer,
        version: 2,
        nonce: () => nonce,
      });
    const first = await send(await usage());
    assert.is(first.status, 200, first.text);
    const again = await send(await usage());
    assert.is(again.status, 401, again.text);
    assert.equal(again.body, {
      error: 'UNAUTHORIZED',
      message: 'This X-Signature-Nonce has already been used.',
      errors: {},
    });
    const fresh = await send(
      await signV2Request(new Request(`${h.baseUrl}/v1/billing/usage`), { ...account.signer, version: 2 }),
    );
    assert.is(fresh.status, 200, fresh.text);

    // A signed upload replayed byte for byte (same headers, same body) creates one task, not two.
    const upload = await signV2Request(
      new Request(`${h.baseUrl}${UPLOAD}`, { method: 'POST', body: uploadForm(goforward('wav')) }),
      { ...account.signer, version: 2 },
    );
    const bytes = Buffer.from(await upload.clone().arrayBuffer());
    const headers = new Headers(upload.headers);
    const replay = () => send(new Request(upload.url, { method: 'POST', body: bytes, headers }));
    assert.is((await replay()).status, 201);
    const replayed = await replay();
    assert.is(replayed.status, 401, replayed.text);
    assert.is((await h.db('transcriptions').where({ account_id: account.id })).length, 1);
  });

  test('the nonce is bound into the signature, and refused with a version 1 signature', async () => {
    const h = harness();
    const account = await h.provision({ balance: 10 });
    const signed = await signV2Request(new Request(`${h.baseUrl}/v1/billing/usage`), {
      ...account.signer,
      version: 2,
    });
    signed.headers.set('X-Signature-Nonce', crypto.randomUUID());
    const swappedNonce = await send(signed);
    assert.is(swappedNonce.status, 401, swappedNonce.text);
    const v1 = await signV2Request(new Request(`${h.baseUrl}/v1/billing/usage`), account.signer);
    v1.headers.set('X-Signature-Nonce', crypto.randomUUID());
    const refused = await send(v1);
    assert.is(refused.status, 401, refused.text);
    assert.match(refused.body.message, /X-Signature-Version: 2/);
  });

  test.run();
}
