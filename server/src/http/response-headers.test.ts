// The headers every answer carries and those of answers with secrets, on SQLite and PostgreSQL: `nosniff` and
// `Referrer-Policy: no-referrer` on successes, errors and unknown routes; `Cache-Control: no-store` on every answer
// that carries a secret or a signed link (a new key, an admin-created account, a key pair, a webhook with its signing
// secret, a v2 transcription with its result links), and not on ordinary reads.
import { readFileSync } from 'node:fs';
import { Agent, get } from 'node:http';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { goforward } from '../test-support/audio.ts';
import { databaseKinds, useHarness, type Reply } from '../test-support/harness.ts';

const guarded = (reply: Reply, name: string) => {
  assert.is(reply.headers.get('x-content-type-options'), 'nosniff', name);
  assert.is(reply.headers.get('referrer-policy'), 'no-referrer', name);
};

for (const kind of databaseKinds) {
  const test = suite(`response headers (${kind})`);
  const harness = useHarness(test, kind, { env: { SCRIBE_URL_ALLOW_HOSTS: '127.0.0.1' } });

  test('nosniff and no-referrer on a success, a 401, a 400 and an unknown route', async () => {
    const h = harness();
    const account = await h.provision({ balance: 1 });
    guarded(await h.v3(account.apiKey, 'GET', '/v3/models'), 'models');
    guarded(await h.request('GET', '/v3/models'), '401');
    guarded(await h.v3(account.apiKey, 'POST', '/v3/billing/calculate', { json: { type: 'fax' } }), '400');
    guarded(await h.request('GET', '/v3/no-such-route'), '404');
    guarded(await h.signed(account.signer, 'GET', '/v1/billing/usage'), 'v1');
  });

  test('an idle kept-alive connection is kept 65 s, above a load balancer idle timeout, and says so', async () => {
    const h = harness();
    // node:http, which shows the Keep-Alive header as sent (the hint clients time their idle connections by).
    const keepAlive = await new Promise<string | undefined>((resolve, reject) => {
      get(`${h.baseUrl}/health`, { agent: new Agent({ keepAlive: true }) }, (res) => {
        res.resume();
        resolve(String(res.headers['keep-alive']));
      }).once('error', reject);
    });
    assert.is(keepAlive, 'timeout=65');
  });

  test('Cache-Control: no-store on answers with secrets or signed links, not on ordinary reads', async () => {
    const h = harness();
    const account = await h.provision({ balance: 10 });
    const form = new FormData();
    form.set('file', new Blob([readFileSync(goforward('wav'))]), 'goforward.wav');
    const v2 = await h.signed(account.signer, 'POST', '/v2/transcriptions', { form });
    assert.is(v2.status, 201, v2.text);
    const secretBearing: [string, Reply][] = [
      ['createApiKey', await h.v3(account.apiKey, 'POST', '/v3/keys/create', { json: { name: 'ci' } })],
      [
        'createWebhook',
        await h.v3(account.apiKey, 'POST', '/v3/webhooks/create', {
          json: { url: 'https://receiver.example.org/hook', events: ['transcription.completed'] },
        }),
      ],
      ['admin createAccount', await h.admin('POST', '/admin/accounts', { json: {} })],
      ['admin issue key', await h.admin('POST', `/admin/accounts/${account.id}/keys`, { json: {} })],
      ['admin key pair', await h.admin('POST', `/admin/accounts/${account.id}/key-pairs`)],
      ['getV2Transcription', await h.signed(account.signer, 'GET', `/v2/transcriptions/${v2.body.transcription_id}`)],
    ];
    for (const [name, reply] of secretBearing) {
      assert.ok(reply.status < 300, `${name}: ${reply.status} ${reply.text}`);
      assert.is(reply.headers.get('cache-control'), 'no-store', name);
      guarded(reply, name);
    }
    const models = await h.v3(account.apiKey, 'GET', '/v3/models');
    assert.is(models.headers.get('cache-control'), null);
  });

  test.run();
}
