// Authentication on every surface, on SQLite and PostgreSQL: each failure and its body (v3 Bearer, v2/v1 signed),
// the HMAC window edges with a frozen server clock, tampered and foreign signatures, the signature-version-2 canonical
// string, and blocked accounts (403 everywhere, 409 on a webhook update).
import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { databaseKinds, useHarness, type Provisioned, type Reply } from '../test-support/harness.ts';

const invalidKey = {
  error: { type: 'authentication_error', code: 'invalid_api_key', message: 'Missing or invalid API key.', param: null },
};
const v2Unauthorized = (message: string) => ({ error: 'UNAUTHORIZED', message, errors: {} });
const MISSING_HEADERS = 'X-Public-Key, X-Timestamp and X-Signature are required.';
const BAD_TIMESTAMP = 'X-Timestamp must be the current Unix time (±300 s).';
const CALCULATE = '/v2/transcriptions/calculate';
const calculateBody = { priority: 'queue', duration: '01:30' };

function expectReply(reply: Reply, status: number, body: unknown) {
  assert.is(reply.status, status, reply.text);
  assert.equal(reply.body, body);
}

for (const kind of databaseKinds) {
  const test = suite(`auth (${kind})`);
  const harness = useHarness(test, kind);
  const fresh = (): Promise<Provisioned> => harness().provision({ balance: 100 });

  test.after.each(() => harness().clock.reset());

  test('v3: a request without Authorization is 401 invalid_api_key', async () => {
    expectReply(await harness().request('GET', '/v3/models'), 401, invalidKey);
  });

  test('v3: malformed Authorization headers are 401', async () => {
    const account = await fresh();
    for (const value of [account.apiKey, `Basic ${account.apiKey}`, 'Bearer', `Bearer ${account.apiKey} extra`]) {
      expectReply(await harness().request('GET', '/v3/models', { headers: { Authorization: value } }), 401, invalidKey);
    }
  });

  test('v3: an unknown key, a key with a known prefix but wrong secret, and a non-sk_live key are 401', async () => {
    const account = await fresh();
    const sameprefix = account.apiKey.slice(0, 16) + 'x'.repeat(account.apiKey.length - 16);
    for (const key of ['sk_live_' + 'A'.repeat(32), sameprefix, 'pk_live_whatever_it_is', account.signer.secret]) {
      expectReply(await harness().v3(key, 'GET', '/v3/models'), 401, invalidKey);
    }
    const ok = await harness().v3(account.apiKey, 'GET', '/v3/models');
    assert.is(ok.status, 200, ok.text);
  });

  test('v3: the Bearer scheme name is case-insensitive', async () => {
    const account = await fresh();
    const reply = await harness().request('GET', '/v3/models', {
      headers: { Authorization: `bearer ${account.apiKey}` },
    });
    assert.is(reply.status, 200, reply.text);
  });

  test('v3: a v2 signature does not authenticate a v3 operation', async () => {
    const account = await fresh();
    const headers = await harness().signatureHeaders(account.signer, 'GET', '/v3/models', undefined);
    expectReply(await harness().request('GET', '/v3/models', { headers }), 401, invalidKey);
  });

  test('v2: a request without the signature headers is 401 UNAUTHORIZED', async () => {
    expectReply(
      await harness().request('POST', CALCULATE, { json: calculateBody }),
      401,
      v2Unauthorized(MISSING_HEADERS),
    );
    expectReply(await harness().request('GET', '/v1/billing/usage'), 401, v2Unauthorized(MISSING_HEADERS));
  });

  test('v2: each one of the three headers missing is 401', async () => {
    const account = await fresh();
    const headers = await harness().signatureHeaders(account.signer, 'GET', '/v1/billing/usage', undefined);
    for (const name of ['X-Public-Key', 'X-Timestamp', 'X-Signature']) {
      const partial = Object.fromEntries(Object.entries(headers).filter(([key]) => key !== name));
      expectReply(
        await harness().request('GET', '/v1/billing/usage', { headers: partial }),
        401,
        v2Unauthorized(MISSING_HEADERS),
      );
    }
    const reply = await harness().request('GET', '/v1/billing/usage', { headers });
    assert.is(reply.status, 200, reply.text);
  });

  test('v2: the HMAC window is ±300 s: ±299 s pass, ±301 s fail', async () => {
    const h = harness();
    const account = await fresh();
    const now = Math.floor(Date.now() / 1000);
    h.clock.freeze(now * 1000);
    for (const skew of [-299, 299, 0]) {
      const reply = await h.signed(account.signer, 'POST', CALCULATE, { json: calculateBody, timestamp: now + skew });
      assert.is(reply.status, 200, `skew ${skew}: ${reply.text}`);
    }
    for (const skew of [-301, 301, -3600, 86_400]) {
      const reply = await h.signed(account.signer, 'POST', CALCULATE, { json: calculateBody, timestamp: now + skew });
      expectReply(reply, 401, v2Unauthorized(BAD_TIMESTAMP));
    }
  });

  test('v2: the window follows the server clock, not the client', async () => {
    const h = harness();
    const account = await fresh();
    const signedAt = Math.floor(Date.now() / 1000) - 10_000;
    h.clock.freeze((signedAt + 299) * 1000);
    const inside = await h.signed(account.signer, 'GET', '/v1/billing/usage', { timestamp: signedAt });
    assert.is(inside.status, 200, inside.text);
    h.clock.freeze((signedAt + 301) * 1000);
    expectReply(
      await h.signed(account.signer, 'GET', '/v1/billing/usage', { timestamp: signedAt }),
      401,
      v2Unauthorized(BAD_TIMESTAMP),
    );
  });

  test('v2: a timestamp that is not Unix seconds is 401', async () => {
    const h = harness();
    const account = await fresh();
    const seconds = Math.floor(Date.now() / 1000);
    for (const timestamp of [`${seconds}.5`, `${seconds * 1000}000`, 'now', `-${seconds}`, new Date().toISOString()]) {
      const headers = await h.signatureHeaders(account.signer, 'GET', '/v1/billing/usage', undefined);
      const reply = await h.request('GET', '/v1/billing/usage', { headers: { ...headers, 'X-Timestamp': timestamp } });
      expectReply(reply, 401, v2Unauthorized(BAD_TIMESTAMP));
    }
  });

  test('v2: a tampered signature is 401 Invalid signature', async () => {
    const h = harness();
    const account = await fresh();
    const headers = await h.signatureHeaders(account.signer, 'POST', CALCULATE, undefined);
    const good = headers['X-Signature']!;
    // Each request carries the timestamp `good` was made for (a second may pass between them).
    const timestamp = Number(headers['X-Timestamp']);
    const flipped = (good[0] === '0' ? '1' : '0') + good.slice(1);
    for (const signature of [flipped, good.slice(0, 63), `${good}00`, 'z'.repeat(64), '']) {
      const reply = await h.signed(account.signer, 'POST', CALCULATE, { json: calculateBody, signature, timestamp });
      expectReply(reply, 401, v2Unauthorized(signature === '' ? MISSING_HEADERS : 'Invalid signature.'));
    }
    // Upper-case hex of the right signature is the same signature.
    const upper = await h.signed(account.signer, 'POST', CALCULATE, {
      json: calculateBody,
      signature: good.toUpperCase(),
      timestamp,
    });
    assert.is(upper.status, 200, upper.text);
  });

  test('v2: a wrong key is 401: another account’s secret, an unknown public key, the timestamp of another request', async () => {
    const h = harness();
    const account = await fresh();
    const other = await fresh();
    const wrongSecret = await h.signed(
      { publicKey: account.signer.publicKey, secret: other.signer.secret },
      'GET',
      '/v1/billing/usage',
    );
    expectReply(wrongSecret, 401, v2Unauthorized('Invalid signature.'));
    const unknown = await h.signed(
      { publicKey: 'pk_' + 'Z'.repeat(32), secret: account.signer.secret },
      'GET',
      '/v1/billing/usage',
    );
    expectReply(unknown, 401, v2Unauthorized('Invalid signature.'));
    const headers = await h.signatureHeaders(account.signer, 'GET', '/v1/billing/usage', undefined);
    const moved = { ...headers, 'X-Timestamp': String(Number(headers['X-Timestamp']) - 1) };
    expectReply(
      await h.request('GET', '/v1/billing/usage', { headers: moved }),
      401,
      v2Unauthorized('Invalid signature.'),
    );
    // The public key of one account with the secret signature of the other never authenticates either of them.
    const crossed = await h.signatureHeaders(other.signer, 'GET', '/v1/billing/usage', undefined);
    const swapped = { ...crossed, 'X-Public-Key': account.signer.publicKey };
    expectReply(
      await h.request('GET', '/v1/billing/usage', { headers: swapped }),
      401,
      v2Unauthorized('Invalid signature.'),
    );
  });

  test('v2: a v3 Bearer key does not authenticate a signed operation', async () => {
    const account = await fresh();
    expectReply(await harness().v3(account.apiKey, 'GET', '/v1/billing/usage'), 401, v2Unauthorized(MISSING_HEADERS));
  });

  test('v2: X-Signature-Version 2 covers method, path with query and body', async () => {
    const h = harness();
    const account = await fresh();
    const ok = await h.signed(account.signer, 'POST', CALCULATE, { json: calculateBody, version: 2 });
    assert.is(ok.status, 200, ok.text);
    const query = await h.signed(account.signer, 'GET', '/v1/billing/usage?period=day', { version: 2 });
    assert.is(query.status, 200, query.text);
    assert.is(query.body.period.from, query.body.period.to);

    const body = JSON.stringify(calculateBody);
    const headers = await h.signatureHeaders(account.signer, 'POST', CALCULATE, body, { version: 2 });
    const json = { 'Content-Type': 'application/json' };
    const otherBody = JSON.stringify({ ...calculateBody, duration: '99:00' });
    expectReply(
      await h.request('POST', CALCULATE, { body: otherBody, headers: { ...json, ...headers } }),
      401,
      v2Unauthorized('Invalid signature.'),
    );
    const signedQuery = await h.signatureHeaders(account.signer, 'GET', '/v1/billing/usage?period=day', undefined, {
      version: 2,
    });
    expectReply(
      await h.request('GET', '/v1/billing/usage?period=week', { headers: signedQuery }),
      401,
      v2Unauthorized('Invalid signature.'),
    );
    // A version-1 signature sent as version 2, and a version-2 signature sent without the header, both fail.
    const v1 = await h.signatureHeaders(account.signer, 'GET', '/v1/billing/usage', undefined);
    expectReply(
      await h.request('GET', '/v1/billing/usage', { headers: { ...v1, 'X-Signature-Version': '2' } }),
      401,
      v2Unauthorized('Invalid signature.'),
    );
    const withoutVersion = { ...signedQuery };
    delete withoutVersion['X-Signature-Version'];
    expectReply(
      await h.request('GET', '/v1/billing/usage?period=day', { headers: withoutVersion }),
      401,
      v2Unauthorized('Invalid signature.'),
    );
  });

  test('v2: an unknown X-Signature-Version is 401', async () => {
    const account = await fresh();
    const headers = await harness().signatureHeaders(account.signer, 'GET', '/v1/billing/usage', undefined);
    expectReply(
      await harness().request('GET', '/v1/billing/usage', { headers: { ...headers, 'X-Signature-Version': '3' } }),
      401,
      v2Unauthorized('X-Signature-Version must be 1 or 2.'),
    );
  });

  test('blocked account: 403 user_blocked on v3, 403 FORBIDDEN on v2 and v1, 409 on a webhook update', async () => {
    const h = harness();
    const account = await fresh();
    await h.app.services.accounts.setBlocked(account.id, true);
    const blocked = {
      error: { type: 'permission_error', code: 'user_blocked', message: 'This account is blocked.', param: null },
    };
    expectReply(await h.v3(account.apiKey, 'GET', '/v3/models'), 403, blocked);
    expectReply(await h.v3(account.apiKey, 'GET', '/v3/keys/list'), 403, blocked);
    expectReply(
      await h.v3(account.apiKey, 'POST', '/v3/billing/calculate', {
        json: { type: 'transcription', duration_seconds: 60 },
      }),
      403,
      blocked,
    );
    const forbidden = { error: 'FORBIDDEN', message: 'This account is blocked.', errors: {} };
    expectReply(await h.signed(account.signer, 'POST', CALCULATE, { json: calculateBody }), 403, forbidden);
    expectReply(await h.signed(account.signer, 'GET', '/v1/billing/usage'), 403, forbidden);
    const update = await h.v3(account.apiKey, 'POST', `/v3/webhooks/update/${randomUUID()}`, {
      json: { enabled: false },
    });
    assert.is(update.status, 409, update.text);
    assert.is(update.body.error.code, 'user_blocked');
    assert.is(update.body.error.type, 'invalid_request_error');
    assert.is(update.body.error.param, null);
    // A wrong key is still 401, not 403: blocking reveals nothing to a caller without credentials.
    expectReply(await h.v3('sk_live_' + 'B'.repeat(32), 'GET', '/v3/models'), 401, invalidKey);

    await h.app.services.accounts.setBlocked(account.id, false);
    assert.is((await h.v3(account.apiKey, 'GET', '/v3/models')).status, 200);
    assert.is((await h.signed(account.signer, 'GET', '/v1/billing/usage')).status, 200);
  });

  test.run();
}
