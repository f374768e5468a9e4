// The client's signV2Request: version 2 signs the bytes the request will send (a FormData body with its boundary)
// and a fresh X-Signature-Nonce bound into the signature; version 1 stays the interface document's string and sends
// no nonce (its signature could not cover one).
import { createHash, createHmac } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { signV2Request } from '../../client/src/sign-v2-request.ts';

const credentials = { publicKey: 'pk_test_public', secret: 'test-secret', now: () => 1_800_000_000_000 };
const hmac = (canonical: string) => createHmac('sha256', credentials.secret).update(canonical).digest('hex');

function upload(): Request {
  const form = new FormData();
  form.set('priority', 'queue');
  form.set('file', new Blob([new Uint8Array([1, 2, 3, 4])]), 'audio.wav');
  return new Request('https://api.example.org/v2/transcriptions?x=1', { method: 'POST', body: form });
}

test('version 2 over a multipart body: the hash of the bytes sent, and a nonce bound into the signature', async () => {
  const signed = await signV2Request(upload(), { ...credentials, version: 2 });
  const sent = Buffer.from(await signed.clone().arrayBuffer());
  assert.ok(sent.includes('audio.wav'), 'the body sent is the encoded form');
  const nonce = signed.headers.get('x-signature-nonce');
  assert.ok(nonce && /^[A-Za-z0-9_-]{16,128}$/.test(nonce), `nonce ${nonce}`);
  const bodyHash = createHash('sha256').update(sent).digest('hex');
  const canonical = `pk_test_public\n1800000000\nPOST\n/v2/transcriptions?x=1\n${bodyHash}\n${nonce}`;
  assert.is(signed.headers.get('x-signature'), hmac(canonical));
  assert.is(signed.headers.get('x-signature-version'), '2');
});

test('version 2: each signing takes a new nonce; `nonce: false` sends none', async () => {
  const one = await signV2Request(upload(), { ...credentials, version: 2 });
  const two = await signV2Request(upload(), { ...credentials, version: 2 });
  assert.is.not(one.headers.get('x-signature-nonce'), two.headers.get('x-signature-nonce'));
  const without = await signV2Request(new Request('https://api.example.org/v1/billing/usage'), {
    ...credentials,
    version: 2,
    nonce: false,
  });
  assert.is(without.headers.get('x-signature-nonce'), null);
  const emptyHash = createHash('sha256').digest('hex');
  assert.is(
    without.headers.get('x-signature'),
    hmac(`pk_test_public\n1800000000\nGET\n/v1/billing/usage\n${emptyHash}`),
  );
});

test('version 1: the interface document’s string, no nonce and no version header', async () => {
  const request = new Request('https://api.example.org/v1/billing/usage', {
    headers: { 'X-Signature-Nonce': 'left-from-before-0000', 'X-Signature-Version': '2' },
  });
  const signed = await signV2Request(request, credentials);
  assert.is(signed.headers.get('x-signature'), hmac('pk_test_public\n1800000000'));
  assert.is(signed.headers.get('x-signature-nonce'), null);
  assert.is(signed.headers.get('x-signature-version'), null);
});

test.run();
