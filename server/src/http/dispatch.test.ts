// The dispatcher's edges on SQLite and PostgreSQL: an optional body may be omitted, a `oneOf` body reports the error
// of the variant its `type` chose, an unknown model in a v3 body is 404 model_not_found, a malformed percent-encoding
// in a path is 400, and transcription tasks are read (status, list) with foreign ids as 404.
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

  test.run();
}
