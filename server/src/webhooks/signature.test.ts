// The signer against the contract's own examples: each webhook's `webhook-signature` example signs its first body
// example (compact JSON) with the secret and the id and timestamp examples the contract names. Secrets have the
// documented shape and key length.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { loadContractDocument } from '../http/contract.ts';
import { newWebhookSecret, signatureOf, signingKey, webhookHeaders } from './signature.ts';
import { verifyStandardWebhook } from './test-receiver.ts';

const test = suite('webhook signatures');
const CONTRACT_SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

interface Parameter {
  name: string;
  description?: string;
  schema: { examples: unknown[] };
}
interface WebhookItem {
  post: {
    parameters: Parameter[];
    requestBody: { content: { 'application/json': { examples: Record<string, { value: unknown }> } } };
  };
}

test('every contract example signature is reproduced', () => {
  const document = loadContractDocument() as unknown as { webhooks: Record<string, WebhookItem> };
  const types = Object.keys(document.webhooks);
  assert.equal(types.sort(), ['transcription.completed', 'transcription.failed']);
  for (const type of types) {
    const { parameters, requestBody } = document.webhooks[type]!.post;
    const example = (name: string) => parameters.find((p) => p.name === name)!.schema.examples[0];
    const signature = parameters.find((p) => p.name === 'webhook-signature')!;
    assert.ok(signature.description?.includes(CONTRACT_SECRET), 'the contract names the example secret');
    const body = JSON.stringify(Object.values(requestBody.content['application/json'].examples)[0]!.value);
    const id = String(example('webhook-id'));
    const timestamp = Number(example('webhook-timestamp'));
    assert.is(signatureOf(CONTRACT_SECRET, id, timestamp, body), example('webhook-signature'), type);
  }
});

test('secrets are whsec_ + base64 of 24 bytes, and the key is the decoded part', () => {
  const secret = newWebhookSecret();
  assert.match(secret, /^whsec_[A-Za-z0-9+/]{32}$/);
  assert.is(signingKey(secret).length, 24);
  assert.equal(signingKey(secret), Buffer.from(secret.slice(6), 'base64'));
  assert.is.not(newWebhookSecret(), secret);
});

test('the headers verify like a receiver verifies them; a changed body or another secret does not', async () => {
  const secret = newWebhookSecret();
  const body = JSON.stringify({ hello: 'world' });
  const headers = webhookHeaders(secret, 'msg_1', Math.floor(Date.now() / 1000), body);
  assert.ok(await verifyStandardWebhook(secret, headers, body));
  assert.not.ok(await verifyStandardWebhook(secret, headers, `${body} `));
  assert.not.ok(await verifyStandardWebhook(newWebhookSecret(), headers, body));
  const old = webhookHeaders(secret, 'msg_1', Math.floor(Date.now() / 1000) - 600, body);
  assert.not.ok(await verifyStandardWebhook(secret, old, body), 'a timestamp 10 minutes old is refused');
});

test.run();
