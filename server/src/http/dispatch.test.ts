// The dispatcher's edges on SQLite and PostgreSQL: an optional body may be omitted, a `oneOf` body reports the error
// of the variant its `type` chose, an unknown model in a v3 body is 404 model_not_found, a malformed percent-encoding
// in a path is 400, transcription tasks are read (status, list) with foreign ids as 404, and HEAD is GET without the
// body (405 where there is no GET; Allow lists HEAD beside GET).
import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { databaseKinds, useHarness } from '../test-support/harness.ts';

for (const kind of databaseKinds) {
  const test = suite(`dispatch (${kind})`);
  const harness = useHarness(test, kind);

  test('an optional body may be omitted entirely (no Content-Type)', async () => {
    const h = harness();
    const account = await h.provision({ balance: 1 });
    const key = await h.v3(account.apiKey, 'POST', '/v3/keys/create');
    assert.is(key.status, 201, key.text);
    const created = await h.admin('POST', '/admin/accounts');
    assert.is(created.status, 201, created.text);
  });

  test('a oneOf body names the field of the chosen variant', async () => {
    const h = harness();
    const account = await h.provision({ balance: 1 });
    const reply = await h.v3(account.apiKey, 'POST', '/v3/billing/calculate', {
      json: { type: 'chat', model: 'service-mini', prompt_tokens: -1, completion_tokens: 10 },
    });
    assert.is(reply.status, 400);
    assert.equal([reply.body.error.code, reply.body.error.param], ['invalid_parameter', 'prompt_tokens']);
    const unknownType = await h.v3(account.apiKey, 'POST', '/v3/billing/calculate', {
      json: { type: 'fax', pages: 2 },
    });
    assert.equal([unknownType.status, unknownType.body.error.param], [400, 'type']);
  });

  test('an unknown model in a v3 body is 404 model_not_found', async () => {
    const h = harness();
    const account = await h.provision({ balance: 1 });
    const reply = await h.v3(account.apiKey, 'POST', '/v3/billing/calculate', {
      json: { type: 'chat', model: 'service-max', prompt_tokens: 1, completion_tokens: 1 },
    });
    assert.equal(
      [reply.status, reply.body.error.type, reply.body.error.code],
      [404, 'not_found_error', 'model_not_found'],
    );
    assert.is(reply.body.error.param, 'model');
  });

  test('a malformed percent-encoding in a path parameter is 400, not 500', async () => {
    const h = harness();
    const account = await h.provision({ balance: 1 });
    const reply = await h.v3(account.apiKey, 'POST', '/v3/keys/revoke/%E0%A4%A');
    assert.equal([reply.status, reply.body.error.param], [400, 'id']);
  });

  test('transcription status and list read the account’s tasks; another account’s id is 404', async () => {
    const h = harness();
    const owner = await h.provision({ balance: 1 });
    const other = await h.provision({ balance: 1 });
    const id = randomUUID();
    const at = new Date().toISOString();
    await h.db('transcriptions').insert({
      id,
      account_id: owner.id,
      status: 'completed',
      mode: 'async',
      api_version: 'v3',
      priority: 'queue',
      source_type: 'url',
      filename: 'a.mp3',
      file_size: 1000,
      language: 'en',
      diarization: false,
      duration_seconds: 61,
      minutes_billed: 2,
      cost_minor: 200,
      progress: 100,
      result: JSON.stringify({ text: 'hello', duration: 61, language: 'en' }),
      created_at: at,
      started_at: at,
      completed_at: at,
    });
    const status = await h.v3(owner.apiKey, 'GET', `/v3/transcriptions/status/${id}`);
    assert.is(status.status, 200, status.text);
    assert.equal(
      [status.body.data.status, status.body.data.minutes_billed, status.body.data.cost, status.body.data.result.text],
      ['completed', 2, 2, 'hello'],
    );
    assert.is((await h.v3(other.apiKey, 'GET', `/v3/transcriptions/status/${id}`)).status, 404);
    const list = await h.v3(owner.apiKey, 'GET', '/v3/transcriptions/list?status=completed&limit=5');
    assert.equal(
      list.body.data.map((t: { id: string }) => t.id),
      [id],
    );
    assert.equal((await h.v3(other.apiKey, 'GET', '/v3/transcriptions/list')).body.data, []);
  });

  // Plain fetch: the harness checks every reply against the contract's bodies, and a HEAD reply has none.
  const head = (path: string, apiKey?: string) =>
    fetch(`${harness().baseUrl}${path}`, {
      method: 'HEAD',
      headers: apiKey ? { Authorization: `Bearer ${apiKey}` } : {},
    });

  test('HEAD on a GET operation answers as GET would, without a body', async () => {
    const h = harness();
    const account = await h.provision({ balance: 1 });
    const get = await h.v3(account.apiKey, 'GET', '/v3/models');
    const models = await head('/v3/models', account.apiKey);
    assert.is(models.status, 200);
    assert.is(await models.text(), '');
    assert.match(models.headers.get('content-type') ?? '', 'application/json');
    assert.is(models.headers.get('content-length'), get.headers.get('content-length'));
    assert.ok(models.headers.get('x-request-id'));
    assert.ok(models.headers.get('ratelimit-remaining'), 'a HEAD counts against the rate limit like its GET');

    const health = await head('/health');
    assert.equal([health.status, await health.text()], [200, '']);
    // Authentication and validation run as for GET: the statuses are GET's.
    const anonymous = await head('/v3/models');
    assert.equal([anonymous.status, await anonymous.text()], [401, '']);
    const foreign = await head(`/v3/transcriptions/status/${randomUUID()}`, account.apiKey);
    assert.equal([foreign.status, await foreign.text()], [404, '']);
  });

  test('HEAD on a POST-only route is 405 without HEAD in Allow; Allow lists HEAD wherever GET is allowed', async () => {
    const h = harness();
    const account = await h.provision({ balance: 1 });
    const create = await head('/v3/keys/create', account.apiKey);
    assert.equal([create.status, create.headers.get('allow')], [405, 'POST']);
    const post = await h.v3(account.apiKey, 'POST', '/v3/models');
    assert.equal([post.status, post.headers.get('allow')], [405, 'GET, HEAD']);
    const put = await h.admin('PUT', '/admin/accounts');
    assert.equal([put.status, put.headers.get('allow')], [405, 'GET, HEAD, POST']);
  });

  test.run();
}
