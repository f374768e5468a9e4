// Idempotency-Key on SQLite and PostgreSQL: a replay returns the stored response without creating anything again,
// another body with the same key is 409 (for a multipart upload: another file or other fields, whatever boundary the
// client picked), keys are per account, and a failed request can be retried with its key.
import { readFileSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { goforward } from '../test-support/audio.ts';
import { databaseKinds, useHarness } from '../test-support/harness.ts';

/** A new FormData per send: fetch writes a new random boundary each time, so the raw bodies always differ. */
function uploadForm(file: string, language = 'en'): FormData {
  const form = new FormData();
  form.set('language', language);
  form.set('file', new Blob([readFileSync(file)]), 'audio');
  return form;
}

for (const kind of databaseKinds) {
  const test = suite(`idempotency (${kind})`);
  const harness = useHarness(test, kind);
  const hook = (path: string) => ({ url: `https://receiver.example.org/${path}`, events: ['transcription.completed'] });

  test('same key and body: one webhook, the same response replayed with Idempotent-Replayed', async () => {
    const h = harness();
    const account = await h.provision({ balance: 1 });
    const headers = { 'Idempotency-Key': 'create-hook-1' };
    const first = await h.v3(account.apiKey, 'POST', '/v3/webhooks/create', { json: hook('a'), headers });
    const second = await h.v3(account.apiKey, 'POST', '/v3/webhooks/create', { json: hook('a'), headers });
    assert.is(first.status, 201, first.text);
    assert.is(second.status, 201, second.text);
    assert.equal(second.body, first.body);
    assert.is(second.headers.get('idempotent-replayed'), 'true');
    assert.is(first.headers.get('idempotent-replayed'), null);
    const rows = await h.db('webhooks').where({ account_id: account.id });
    assert.is(rows.length, 1);
  });

  test('same key, different body: 409 idempotency_key_reused and nothing created', async () => {
    const h = harness();
    const account = await h.provision({ balance: 1 });
    const headers = { 'Idempotency-Key': 'k-2' };
    assert.is((await h.v3(account.apiKey, 'POST', '/v3/webhooks/create', { json: hook('a'), headers })).status, 201);
    const conflict = await h.v3(account.apiKey, 'POST', '/v3/webhooks/create', { json: hook('b'), headers });
    assert.is(conflict.status, 409);
    assert.is(conflict.body.error.code, 'idempotency_key_reused');
    assert.is((await h.db('webhooks').where({ account_id: account.id })).length, 1);
  });

  test('multipart: the same file and fields replay (another boundary), another file or field is 409', async () => {
    const h = harness();
    const account = await h.provision({ balance: 10 });
    const headers = { 'Idempotency-Key': 'upload-1' };
    const create = (form: FormData) =>
      h.v3(account.apiKey, 'POST', '/v3/transcriptions/async/create', { form, headers });
    const first = await create(uploadForm(goforward('wav')));
    assert.is(first.status, 202, first.text);
    const same = await create(uploadForm(goforward('wav')));
    assert.is(same.status, 202, same.text);
    assert.equal(same.body, first.body);
    assert.is(same.headers.get('idempotent-replayed'), 'true');
    const otherFile = await create(uploadForm(goforward('mp3')));
    assert.is(otherFile.status, 409, otherFile.text);
    assert.is(otherFile.body.error.code, 'idempotency_key_reused');
    const otherField = await create(uploadForm(goforward('wav'), 'ru'));
    assert.is(otherField.status, 409, otherField.text);
    assert.is((await h.db('transcriptions').where({ account_id: account.id })).length, 1);
  });

  test('a stored answer that carries a secret is sealed at rest and replayed in clear', async () => {
    const h = harness();
    const account = await h.provision({ balance: 1 });
    const headers = { 'Idempotency-Key': 'new-key-1' };
    const first = await h.v3(account.apiKey, 'POST', '/v3/keys/create', { json: { name: 'ci' }, headers });
    assert.is(first.status, 201, first.text);
    const replay = await h.v3(account.apiKey, 'POST', '/v3/keys/create', { json: { name: 'ci' }, headers });
    assert.equal(replay.body, first.body);
    const row = await h.db('idempotency_keys').where({ account_id: account.id, key: 'new-key-1' }).first();
    assert.match(String(first.body.secret), /^sk_live_/);
    assert.not.ok(String(row.response_body).includes(first.body.secret), 'the API key is stored in clear');
  });

  test('keys are per account: another account may use the same key', async () => {
    const h = harness();
    const one = await h.provision({ balance: 1 });
    const two = await h.provision({ balance: 1 });
    const headers = { 'Idempotency-Key': 'shared' };
    const a = await h.v3(one.apiKey, 'POST', '/v3/webhooks/create', { json: hook('a'), headers });
    const b = await h.v3(two.apiKey, 'POST', '/v3/webhooks/create', { json: hook('a'), headers });
    assert.is(a.status, 201);
    assert.is(b.status, 201);
    assert.is.not(a.body.id, b.body.id);
  });

  test('a request that failed is not stored: the key can be used again', async () => {
    const h = harness();
    const account = await h.provision({ balance: 1 });
    // The account already has its default key: 99 more reach the limit of 100.
    for (let i = 0; i < 99; i++) await h.app.services.keys.issueApiKey(account.id, `k${i}`);
    const headers = { 'Idempotency-Key': 'retry-me' };
    const refused = await h.v3(account.apiKey, 'POST', '/v3/keys/create', { json: { name: 'x' }, headers });
    assert.is(refused.status, 409);
    assert.is(refused.body.error.code, 'key_limit_exceeded');
    await h
      .db('api_keys')
      .where({ account_id: account.id, name: 'k0' })
      .update({ revoked_at: new Date().toISOString() });
    const retried = await h.v3(account.apiKey, 'POST', '/v3/keys/create', { json: { name: 'x' }, headers });
    assert.is(retried.status, 201, retried.text);
  });

  test.run();
}
