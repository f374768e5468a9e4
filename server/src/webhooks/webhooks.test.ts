// Webhook registration on SQLite and PostgreSQL: create shows the secret once, list, update (enabled, events), delete,
// foreign ids are 404, a blocked account gets 409 on update (the seed) but 403 elsewhere, and URLs of private,
// loopback or link-local addresses are refused on create and update (this server allows none).
import { randomBytes, randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { databaseKinds, useHarness } from '../test-support/harness.ts';
import { createWebhookStore } from './store.ts';
import { singleKey } from '../secrets/secret-box.ts';

for (const kind of databaseKinds) {
  const test = suite(`webhooks (${kind})`);
  const harness = useHarness(test, kind);
  const body = { url: 'https://receiver.example.org/hook', events: ['transcription.completed'], description: 'ci' };

  test('create returns a whsec_ secret once; list shows the endpoint without it', async () => {
    const h = harness();
    const account = await h.provision({ balance: 1 });
    const created = await h.v3(account.apiKey, 'POST', '/v3/webhooks/create', { json: body });
    assert.is(created.status, 201, created.text);
    assert.match(created.body.secret, /^whsec_[A-Za-z0-9+/]{32}$/);
    assert.equal([created.body.url, created.body.events, created.body.enabled], [body.url, body.events, true]);
    const list = await h.v3(account.apiKey, 'GET', '/v3/webhooks/list');
    assert.is(list.status, 200);
    assert.equal(
      list.body.data.map((w: { id: string }) => w.id),
      [created.body.id],
    );
    assert.is(list.body.data[0].secret, undefined);
  });

  test('the signing secret is sealed at rest; rows from before sealing are sealed and still open', async () => {
    const h = harness();
    const account = await h.provision({ balance: 1 });
    const created = await h.v3(account.apiKey, 'POST', '/v3/webhooks/create', { json: body });
    assert.is(created.status, 201, created.text);
    const row = await h.db('webhooks').where({ id: created.body.id }).first();
    assert.not.ok(String(row.secret).includes(created.body.secret.slice('whsec_'.length)), 'stored in clear');
    assert.match(String(row.secret), /^sealed:/);

    // A row as an older version wrote it: the secret itself.
    const key = randomBytes(32);
    const store = createWebhookStore(h.db, singleKey(key));
    const legacy = { ...row, id: randomUUID(), secret: 'whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' };
    await h.db('webhooks').insert(legacy);
    assert.ok((await store.sealPlaintextSecrets()) >= 1);
    const sealed = await h.db('webhooks').where({ id: legacy.id }).first();
    assert.match(String(sealed.secret), /^sealed:/);
    assert.is((await store.get(legacy.id))!.secret, legacy.secret);
    assert.is(await store.sealPlaintextSecrets(), 0, 'sealed twice');
    await h.db('webhooks').where({ id: legacy.id }).delete();
  });

  test('update changes events and enabled; delete removes; foreign ids are 404', async () => {
    const h = harness();
    const owner = await h.provision({ balance: 1 });
    const other = await h.provision({ balance: 1 });
    const { id } = (await h.v3(owner.apiKey, 'POST', '/v3/webhooks/create', { json: body })).body;
    const updated = await h.v3(owner.apiKey, 'POST', `/v3/webhooks/update/${id}`, {
      json: { events: ['transcription.failed'], enabled: false },
    });
    assert.is(updated.status, 200, updated.text);
    assert.equal([updated.body.events, updated.body.enabled], [['transcription.failed'], false]);
    assert.is((await h.v3(other.apiKey, 'POST', `/v3/webhooks/update/${id}`, { json: { enabled: true } })).status, 404);
    assert.is((await h.v3(other.apiKey, 'POST', `/v3/webhooks/delete/${id}`)).status, 404);
    const deleted = await h.v3(owner.apiKey, 'POST', `/v3/webhooks/delete/${id}`);
    assert.equal([deleted.status, deleted.body], [200, { id, deleted: true }]);
    assert.is((await h.v3(owner.apiKey, 'POST', `/v3/webhooks/delete/${id}`)).status, 404);
  });

  test('a blocked account: 409 user_blocked on webhook update, 403 on create', async () => {
    const h = harness();
    const account = await h.provision({ balance: 1 });
    const { id } = (await h.v3(account.apiKey, 'POST', '/v3/webhooks/create', { json: body })).body;
    await h.app.services.accounts.setBlocked(account.id, true);
    const update = await h.v3(account.apiKey, 'POST', `/v3/webhooks/update/${id}`, { json: { enabled: false } });
    assert.equal(
      [update.status, update.body.error.type, update.body.error.code],
      [409, 'invalid_request_error', 'user_blocked'],
    );
    const create = await h.v3(account.apiKey, 'POST', '/v3/webhooks/create', { json: body });
    assert.equal([create.status, create.body.error.code], [403, 'user_blocked']);
  });

  test('a url that is not http(s) is refused with param url', async () => {
    const h = harness();
    const account = await h.provision({ balance: 1 });
    const reply = await h.v3(account.apiKey, 'POST', '/v3/webhooks/create', {
      json: { ...body, url: 'ftp://x.example.org/' },
    });
    assert.is(reply.status, 400);
    assert.is(reply.body.error.param, 'url');
  });

  test('a private, loopback or link-local url is refused on create and update with param url', async () => {
    const h = harness();
    const account = await h.provision({ balance: 1 });
    for (const url of [
      'http://10.0.0.1/hook',
      'http://169.254.169.254/latest/meta-data/',
      'http://127.0.0.1:8080/hook',
      'http://[::1]/hook',
      'https://192.168.1.10/hook',
    ]) {
      const reply = await h.v3(account.apiKey, 'POST', '/v3/webhooks/create', { json: { ...body, url } });
      assert.equal(
        [reply.status, reply.body.error.code, reply.body.error.param],
        [400, 'invalid_parameter', 'url'],
        url,
      );
      assert.is(reply.body.error.message, 'url points to a private, loopback or link-local address.');
    }
    const { id } = (await h.v3(account.apiKey, 'POST', '/v3/webhooks/create', { json: body })).body;
    const update = await h.v3(account.apiKey, 'POST', `/v3/webhooks/update/${id}`, {
      json: { url: 'http://10.0.0.1/hook' },
    });
    assert.equal([update.status, update.body.error.param], [400, 'url']);
    const list = await h.v3(account.apiKey, 'GET', '/v3/webhooks/list');
    assert.equal(
      list.body.data.map((w: { url: string }) => w.url),
      [body.url],
    );
  });

  test('test and deliveries of a foreign or unknown endpoint are 404', async () => {
    const h = harness();
    const owner = await h.provision({ balance: 1 });
    const other = await h.provision({ balance: 1 });
    const { id } = (await h.v3(owner.apiKey, 'POST', '/v3/webhooks/create', { json: body })).body;
    assert.is((await h.v3(other.apiKey, 'POST', `/v3/webhooks/test/${id}`)).status, 404);
    assert.is((await h.v3(other.apiKey, 'GET', `/v3/webhooks/deliveries/${id}`)).status, 404);
    const empty = await h.v3(owner.apiKey, 'GET', `/v3/webhooks/deliveries/${id}`);
    assert.equal([empty.status, empty.body], [200, { data: [], has_more: false, next_cursor: null }]);
  });

  test.run();
}
