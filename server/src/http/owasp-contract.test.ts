// What the OWASP API lint of the contract asked for, held by the running server on SQLite and PostgreSQL: every 401
// names its scheme in WWW-Authenticate (the value the contract declares for that surface), refusals after
// authentication carry the account's RateLimit-* headers, /health and /v3/models answer an unknown query parameter
// with the 400 they declare, and the request bounds the contract states (message and part lengths, message counts,
// embedding texts, ids) are enforced with the contract's 400 naming the field.
import { readFileSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { challenges } from './auth-challenge.ts';
import { databaseKinds, useHarness, type Reply } from '../test-support/harness.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- reading the bundled contract
const contract = JSON.parse(readFileSync(new URL('../../../generated/openapi.json', import.meta.url), 'utf8')) as Json;
const declaredChallenge = (name: string): string => contract.components.headers[name].schema.const;

const expectInvalid = (reply: Reply, param: string) => {
  assert.is(reply.status, 400, reply.text);
  assert.is(reply.body.error.code, 'invalid_parameter', reply.text);
  assert.is(reply.body.error.param, param, reply.text);
};

test0();
function test0() {
  const test = suite('auth challenges match the contract');
  test('each surface challenge is the const its contract header declares', () => {
    assert.is(challenges.bearer, declaredChallenge('WWW-Authenticate'));
    assert.is(challenges.signed, declaredChallenge('WWW-Authenticate-Signed'));
    assert.is(challenges.admin, declaredChallenge('WWW-Authenticate-Admin'));
  });
  test.run();
}

for (const kind of databaseKinds) {
  const test = suite(`OWASP contract findings (${kind})`);
  const harness = useHarness(test, kind);

  test('every 401 carries WWW-Authenticate with its surface scheme', async () => {
    const h = harness();
    const account = await h.provision({ balance: 1 });
    const v3 = await h.request('GET', '/v3/models');
    assert.is(v3.status, 401);
    assert.is(v3.headers.get('www-authenticate'), 'Bearer realm="scribe"');
    const wrongKey = await h.v3('sk_live_wrong', 'GET', '/v3/keys/list');
    assert.is(wrongKey.status, 401);
    assert.is(wrongKey.headers.get('www-authenticate'), 'Bearer realm="scribe"');
    const v1 = await h.signed(account.signer, 'GET', '/v1/billing/usage', { signature: '0'.repeat(64) });
    assert.is(v1.status, 401);
    assert.is(v1.headers.get('www-authenticate'), challenges.signed);
    const v2 = await h.request('POST', '/v2/transcriptions/calculate', {
      json: { priority: 'queue', duration: '1:00' },
    });
    assert.is(v2.status, 401);
    assert.is(v2.headers.get('www-authenticate'), challenges.signed);
    const admin = await h.admin('GET', '/admin/accounts', { token: 'x'.repeat(40) });
    assert.is(admin.status, 401);
    assert.is(admin.headers.get('www-authenticate'), challenges.admin);
    const ok = await h.v3(account.apiKey, 'GET', '/v3/models');
    assert.is(ok.headers.get('www-authenticate'), null);
  });

  test('refusals after authentication carry RateLimit-*; a refused credential does not', async () => {
    const h = harness();
    const account = await h.provision({ balance: 1 });
    const refusals = [
      await h.v3(account.apiKey, 'POST', '/v3/billing/calculate', { json: { type: 'fax' } }),
      await h.v3(account.apiKey, 'GET', '/v3/models/no-such-model'),
      await h.v3(account.apiKey, 'GET', `/v3/transcriptions/status/${crypto.randomUUID()}`),
    ];
    assert.equal(
      refusals.map((r) => r.status),
      [400, 404, 404],
    );
    for (const reply of refusals) {
      assert.is(reply.headers.get('ratelimit-limit'), '10', reply.text);
      assert.ok(reply.headers.get('ratelimit-remaining') !== null);
      assert.ok(reply.headers.get('ratelimit-reset') !== null);
    }
    const refused = await h.request('GET', '/v3/models');
    assert.is(refused.headers.get('ratelimit-limit'), null);
  });

  test('/health and /v3/models answer an unknown query parameter with their declared 400', async () => {
    const h = harness();
    const account = await h.provision({ balance: 1 });
    expectInvalid(await h.request('GET', '/health?verbose=1'), 'verbose');
    expectInvalid(await h.v3(account.apiKey, 'GET', '/v3/models?limit=5'), 'limit');
  });

  test('request bounds: message length and count, parts, embedding texts, ids', async () => {
    const h = harness();
    const { apiKey } = await h.provision({ balance: 100 });
    const chat = (path: string, body: unknown) => h.v3(apiKey, 'POST', path, { json: body });
    const long = 'a'.repeat(524_289);
    expectInvalid(
      await chat('/v3/chat/completions/create', { model: 'service-mini', messages: [{ role: 'user', content: long }] }),
      'messages.0.content',
    );
    const many = Array.from({ length: 1025 }, () => ({ role: 'user', content: 'hi' }));
    expectInvalid(await chat('/v3/chat/completions/create', { model: 'service-mini', messages: many }), 'messages');
    expectInvalid(await chat('/v3/chat/completions', { model: 'service-mini', messages: many }), 'messages');
    const part = await chat('/v3/chat/completions', {
      model: 'service-mini',
      messages: [{ role: 'user', content: [{ type: 'text', text: long }] }],
    });
    assert.is(part.status, 400, part.text);
    assert.match(part.body.error.param, /^messages\.0\.content/);
    const text = 'b'.repeat(131_073);
    expectInvalid(await chat('/v3/embeddings/create', { model: 'service-embedding', input: text }), 'input');
    expectInvalid(await chat('/v3/embeddings', { model: 'service-embedding', input: ['ok', text] }), 'input.1');
    expectInvalid(
      await chat('/v3/embeddings', { model: 'service-embedding', input: 'ok', user: 'u'.repeat(257) }),
      'user',
    );
  });

  test.run();
}
