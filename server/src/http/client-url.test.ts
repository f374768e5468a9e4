// Client URLs that the WHATWG parser refuses are the client's mistake: 400 `invalid_parameter` naming the field on
// v3 async create and the webhook operations, the v2 validation body on v2 create, and never a 500. Some of them the
// contract's pattern already refuses (an octet above 255, a percent sign in the host); others pass the pattern and
// are caught by parseClientUrl (a malformed IPv6 literal, an empty punycode label).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { databaseKinds, useHarness } from '../test-support/harness.ts';
import { ApiError } from './api-error.ts';
import { loggableUrl, parseClientUrl } from './client-url.ts';

/** The hostile links of the contract test: the contract's old `^https?://` pattern admitted every one of them. */
const HOSTILE = [
  'http://256.256.256.256/',
  'http://1.2.3.4.5.6/',
  'http://a%2Fb/',
  'http://x%00y/',
  'http://[:::]/a.mp3',
  'http://xn--/a.mp3',
];

const unit = suite('parseClientUrl');

unit('returns the parsed URL of a good link', () => {
  assert.is(parseClientUrl('HTTPS://Media.Example.com/a%20b.mp3', 'url').href, 'https://media.example.com/a%20b.mp3');
  // Punycode labels that decode are hosts like any other, written either way.
  assert.is(parseClientUrl('http://xn--bcher-kva.example/a.mp3', 'url').hostname, 'xn--bcher-kva.example');
  assert.is(parseClientUrl('http://bücher.example/a.mp3', 'url').hostname, 'xn--bcher-kva.example');
});

unit('a URL written to a log has no user, password, query or fragment', () => {
  const logged = loggableUrl('http://alice:s3cr3t@10.0.0.1:8080/media/a.wav?X-Amz-Signature=deadbeef&token=t0k#frag');
  assert.is(logged, 'http://***@10.0.0.1:8080/media/a.wav?…');
  for (const secret of ['alice', 's3cr3t', 'deadbeef', 't0k', 'frag']) assert.not.ok(logged.includes(secret), secret);
  assert.is(loggableUrl('https://media.example.com/a.mp3'), 'https://media.example.com/a.mp3');
  assert.is(loggableUrl('not a url'), '(not a URL)');
});

unit('refuses what the WHATWG parser refuses, and other schemes, as 400 invalid_parameter on the field', () => {
  for (const value of [...HOSTILE, 'ftp://example.com/a.mp3', 'not a url']) {
    try {
      parseClientUrl(value, 'source_url');
      assert.unreachable(value);
    } catch (error) {
      assert.instance(error, ApiError, value);
      const apiError = error as ApiError;
      assert.equal([apiError.status, apiError.code, apiError.param], [400, 'invalid_parameter', 'source_url'], value);
    }
  }
});

unit.run();

for (const kind of databaseKinds) {
  const test = suite(`client URLs through the API (${kind})`);
  const harness = useHarness(test, kind, { env: { SCRIBE_RATE_LIMIT_RPS: '1000' } });

  test('v3 async create: each hostile link is 400 invalid_parameter with param url, and no task is created', async () => {
    const h = harness();
    const account = await h.provision({ balance: 10 });
    for (const url of HOSTILE) {
      const reply = await h.v3(account.apiKey, 'POST', '/v3/transcriptions/async/create', { json: { url } });
      assert.is(reply.status, 400, `${url}: ${reply.text}`);
      assert.equal([reply.body.error.code, reply.body.error.param], ['invalid_parameter', 'url'], url);
    }
    const tasks = await h.db('transcriptions').where({ account_id: account.id }).count({ n: '*' }).first();
    assert.is(Number(tasks?.n), 0);
  });

  test('v2 create: each hostile source_url is 400 VALIDATION_ERROR naming errors.source_url', async () => {
    const h = harness();
    const account = await h.provision({ balance: 10 });
    for (const url of HOSTILE) {
      const form = new FormData();
      form.set('source_url', url);
      const reply = await h.signed(account.signer, 'POST', '/v2/transcriptions', { form });
      assert.is(reply.status, 400, `${url}: ${reply.text}`);
      assert.equal([reply.body.error, Object.keys(reply.body.errors)], ['VALIDATION_ERROR', ['source_url']], url);
    }
  });

  test('webhooks create and update: each hostile url is 400 invalid_parameter with param url', async () => {
    const h = harness();
    const account = await h.provision({ balance: 10 });
    const created = await h.v3(account.apiKey, 'POST', '/v3/webhooks/create', {
      json: { url: 'https://hooks.example.com/scribe', events: ['transcription.completed'] },
    });
    assert.is(created.status, 201, created.text);
    for (const url of HOSTILE) {
      const create = await h.v3(account.apiKey, 'POST', '/v3/webhooks/create', {
        json: { url, events: ['transcription.completed'] },
      });
      assert.is(create.status, 400, `${url}: ${create.text}`);
      assert.equal([create.body.error.code, create.body.error.param], ['invalid_parameter', 'url'], url);
      const update = await h.v3(account.apiKey, 'POST', `/v3/webhooks/update/${created.body.id}`, { json: { url } });
      assert.is(update.status, 400, `${url}: ${update.text}`);
      assert.equal([update.body.error.code, update.body.error.param], ['invalid_parameter', 'url'], url);
    }
  });

  test.run();
}
