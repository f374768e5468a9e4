// The HTTP conventions every operation shares, on SQLite and PostgreSQL: GET /health, GET /v3/models, X-Request-Id,
// 404 route, 405 with Allow, 415, invalid JSON, validation errors naming `param`, a chat model without an engine
// answering 503 in its version's error body, 500 that hide the cause, and the server's own response validation in
// test mode.
import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { databaseKinds, useHarness, type Reply } from '../test-support/harness.ts';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const v3Error = (type: string, code: string, message: string, param: string | null = null) => ({
  error: { type, code, message, param },
});

function expectReply(reply: Reply, status: number, body: unknown) {
  assert.is(reply.status, status, reply.text);
  assert.equal(reply.body, body);
}

for (const kind of databaseKinds) {
  const test = suite(`http conventions (${kind})`);
  const harness = useHarness(test, kind);
  const fresh = () => harness().provision({ balance: 10 });

  test('GET /health answers ok without credentials', async () => {
    const reply = await harness().request('GET', '/health', { headers: { Authorization: 'Bearer nonsense' } });
    assert.is(reply.status, 200, reply.text);
    const { uptime_seconds: uptime, ...rest } = reply.body;
    assert.equal(rest, {
      status: 'ok',
      version: '0.1.0',
      role: 'all',
      jobs: { running: 0, queued: 0 },
      checks: {
        database: 'ok',
        queue: 'ok',
        disk: 'ok',
        webhooks: 'ok',
        // The test server configures no chat model (none ships); the embedded embedding engine is always there.
        engines: { transcription: 'available', chat: 'unavailable', embedding: 'available' },
      },
    });
    assert.ok(Number.isInteger(uptime) && uptime >= 0 && uptime < 600, `uptime_seconds ${uptime}`);
  });

  test('GET /v3/models lists the four model ids', async () => {
    const account = await fresh();
    const reply = await harness().v3(account.apiKey, 'GET', '/v3/models');
    assert.is(reply.status, 200, reply.text);
    assert.is(reply.body.object, 'list');
    const models = reply.body.data as { id: string; object: string; type: string; owned_by: string; created: number }[];
    assert.equal(
      models.map((m) => [m.id, m.type]),
      [
        ['service-mini', 'chat'],
        ['service-pro', 'chat'],
        ['service-embedding', 'embedding'],
        ['service-transcribe', 'transcription'],
      ],
    );
    // The transcription model is served by the embedded engine, which declares its languages.
    const transcribe = reply.body.data[3];
    assert.is(transcribe.status, 'available');
    assert.is(transcribe.engine, 'pocketsphinx');
    assert.equal(transcribe.languages, ['en']);
    for (const model of models) {
      assert.is(model.object, 'model');
      assert.is(model.owned_by, 'scribe');
      assert.ok(Number.isInteger(model.created) && model.created > 1_700_000_000);
    }
  });

  test('X-Request-Id: a valid client value is echoed on success and on errors', async () => {
    const h = harness();
    const id = 'client-Req_42.attempt:1';
    for (const [method, path] of [
      ['GET', '/health'],
      ['GET', '/v3/models'],
      ['GET', '/v3/nowhere'],
      ['DELETE', '/admin/accounts'],
      ['GET', '/v1/billing/usage'],
    ] as const) {
      const reply = await h.request(method, path, { headers: { 'X-Request-Id': id } });
      assert.is(reply.headers.get('x-request-id'), id, `${method} ${path} → ${reply.status}`);
    }
    const longest = 'a'.repeat(128);
    assert.is(
      (await h.request('GET', '/health', { headers: { 'X-Request-Id': longest } })).headers.get('x-request-id'),
      longest,
    );
  });

  test('X-Request-Id: without a valid client value the server generates a UUID per request', async () => {
    const h = harness();
    const seen = new Set<string>();
    for (const sent of [undefined, '', 'has space', 'a'.repeat(129), 'semi;colon', 'ünïcode']) {
      const reply = await h.request('GET', '/health', { headers: sent === undefined ? {} : { 'X-Request-Id': sent } });
      const id = reply.headers.get('x-request-id') ?? '';
      assert.match(id, UUID_V4, `sent ${JSON.stringify(sent)}, got ${id}`);
      seen.add(id);
    }
    assert.is(seen.size, 6, 'request ids repeat');
  });

  test('an unknown route is 404 not_found in the version’s body', async () => {
    const h = harness();
    const notFound = v3Error('not_found_error', 'not_found', 'No such route.');
    expectReply(await h.request('GET', '/v3/nothing/here'), 404, notFound);
    expectReply(await h.request('GET', '/'), 404, notFound);
    expectReply(await h.request('POST', '/admin/nothing', { json: {} }), 404, notFound);
    const v2NotFound = { error: 'NOT_FOUND', message: 'No such route.', errors: {} };
    expectReply(await h.request('GET', '/v2/nothing'), 404, v2NotFound);
    expectReply(await h.request('GET', '/v1/billing/nothing'), 404, v2NotFound);
    // An OpenAI-style client whose base URL ends in /v1: the body its library reads, and where the route is.
    expectReply(
      await h.request('POST', '/v1/chat/completions', { json: {} }),
      404,
      v3Error(
        'not_found_error',
        'not_found',
        'No such route. OpenAI-style clients take the base URL ending in /v3 (this server serves /v3/chat/completions).',
      ),
    );
    expectReply(await h.request('GET', '/v1/nothing'), 404, notFound);
  });

  test('a wrong method is 405 with Allow, before authentication', async () => {
    const h = harness();
    const cases: [string, string, string][] = [
      ['DELETE', '/admin/accounts', 'GET, HEAD, POST'],
      ['GET', '/v3/keys/create', 'POST'],
      ['POST', '/v3/models', 'GET, HEAD'],
      ['PUT', '/health', 'GET, HEAD'],
      ['POST', `/v3/transcriptions/status/${randomUUID()}`, 'GET, HEAD'],
    ];
    for (const [method, path, allow] of cases) {
      const reply = await h.request(method, path);
      expectReply(
        reply,
        405,
        v3Error('invalid_request_error', 'method_not_allowed', `Method not allowed; use ${allow}.`),
      );
      assert.is(reply.headers.get('allow'), allow);
    }
    const v2 = await h.request('GET', '/v2/chat/completions');
    expectReply(v2, 405, { error: 'VALIDATION_ERROR', message: 'Method not allowed; use POST.', errors: {} });
    assert.is(v2.headers.get('allow'), 'POST');
  });

  test('an unsupported Content-Type is 415 unsupported_media_type', async () => {
    const h = harness();
    const account = await fresh();
    expectReply(
      await h.v3(account.apiKey, 'POST', '/v3/keys/create', {
        body: 'name=x',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      }),
      415,
      v3Error(
        'invalid_request_error',
        'unsupported_media_type',
        'Content-Type application/x-www-form-urlencoded is not supported; use application/json.',
      ),
    );
    expectReply(
      await h.admin('POST', '/admin/accounts', { body: '<account/>', headers: { 'Content-Type': 'application/xml' } }),
      415,
      v3Error(
        'invalid_request_error',
        'unsupported_media_type',
        'Content-Type application/xml is not supported; use application/json.',
      ),
    );
    expectReply(
      await h.signed(account.signer, 'POST', '/v2/transcriptions/calculate', {
        body: 'duration=01:00',
        headers: { 'Content-Type': 'text/plain' },
      }),
      415,
      {
        error: 'UNSUPPORTED_MEDIA_TYPE',
        message: 'Content-Type text/plain is not supported; use application/json.',
        errors: {},
      },
    );
    // Parameters of the media type do not matter.
    const charset = await h.v3(account.apiKey, 'POST', '/v3/keys/create', {
      body: JSON.stringify({ name: 'charset' }),
      headers: { 'Content-Type': 'application/json; charset=utf-8' },
    });
    assert.is(charset.status, 201, charset.text);
  });

  test('a body that is not JSON is 400 invalid_json', async () => {
    const h = harness();
    const account = await fresh();
    const json = { 'Content-Type': 'application/json' };
    const invalid = v3Error('invalid_request_error', 'invalid_json', 'The request body is not valid JSON.');
    expectReply(
      await h.v3(account.apiKey, 'POST', '/v3/keys/create', { body: '{"name":', headers: json }),
      400,
      invalid,
    );
    expectReply(
      await h.v3(account.apiKey, 'POST', '/v3/billing/calculate', { body: "{'type':1}", headers: json }),
      400,
      invalid,
    );
    expectReply(await h.admin('POST', '/admin/accounts', { body: 'nope', headers: json }), 400, invalid);
    expectReply(
      await h.signed(account.signer, 'POST', '/v2/transcriptions/calculate', { body: '{bad', headers: json }),
      400,
      { error: 'VALIDATION_ERROR', message: 'The request body is not valid JSON.', errors: {} },
    );
  });

  test('validation errors name the offending parameter', async () => {
    const h = harness();
    const account = await fresh();
    const invalid = (param: string, message: string) =>
      v3Error('invalid_request_error', 'invalid_parameter', message, param);
    const missing = (param: string) =>
      v3Error('invalid_request_error', 'missing_parameter', `${param} is required.`, param);
    expectReply(
      await h.v3(account.apiKey, 'GET', '/v3/keys/list?limit=0'),
      400,
      invalid('limit', 'limit must be >= 1.'),
    );
    expectReply(
      await h.v3(account.apiKey, 'GET', '/v3/keys/list?limit=101'),
      400,
      invalid('limit', 'limit must be <= 100.'),
    );
    const cursor = await h.v3(account.apiKey, 'GET', '/v3/keys/list?after=not-a-cursor');
    expectReply(cursor, 400, invalid('after', 'after is not a cursor returned by this endpoint.'));
    const extra = await h.v3(account.apiKey, 'POST', '/v3/keys/create', { json: { name: 'x', colour: 'red' } });
    expectReply(extra, 400, invalid('colour', 'colour is not a known parameter.'));
    const wrongType = await h.v3(account.apiKey, 'POST', '/v3/keys/create', { json: { name: 5 } });
    assert.is(wrongType.status, 400, wrongType.text);
    assert.is(wrongType.body.error.code, 'invalid_parameter');
    assert.is(wrongType.body.error.param, 'name');
    const nested = await h.v3(account.apiKey, 'POST', '/v3/webhooks/create', {
      json: { url: 'https://hooks.example.com/x', events: ['no.such.event'] },
    });
    assert.is(nested.status, 400, nested.text);
    assert.is(nested.body.error.code, 'invalid_parameter');
    assert.is(nested.body.error.param, 'events.0');
    // An enum's error lists the values it allows.
    assert.match(
      nested.body.error.message,
      /^events\.0 must be one of transcription\.completed, transcription\.failed/,
    );
    const priority = await h.v3(account.apiKey, 'POST', '/v3/billing/calculate', {
      json: { type: 'transcription', duration_seconds: 60, priority: 'fast' },
    });
    expectReply(priority, 400, invalid('priority', 'priority must be one of queue, lightning.'));

    const admin = (path: string, json: unknown) => h.admin('POST', path, { json });
    expectReply(await admin(`/admin/accounts/${account.id}/topup`, {}), 400, missing('amount'));
    const typed = await admin(`/admin/accounts/${account.id}/topup`, { amount: 'ten' });
    assert.is(typed.status, 400, typed.text);
    assert.is(typed.body.error.param, 'amount');
    const path = await h.admin('GET', '/admin/accounts/not-a-uuid');
    expectReply(path, 400, invalid('id', 'id must match format "uuid".'));
    const noBody = await h.v3(account.apiKey, 'POST', '/v3/billing/calculate', {
      body: '',
      headers: { 'Content-Type': 'application/json' },
    });
    expectReply(noBody, 400, missing('body'));
  });

  test('a chat model without an engine answers 503 engine_unavailable in its version’s body', async () => {
    const h = harness();
    const account = await fresh();
    const messages = [{ role: 'user', content: 'Hello' }];
    const message =
      'No engine is configured for service-mini; set SCRIBE_MINI_MODEL to a GGUF path or openai:<base-url>#<model>.';
    for (const path of ['/v3/chat/completions/create', '/v3/chat/completions']) {
      const reply = await h.v3(account.apiKey, 'POST', path, { json: { model: 'service-mini', messages } });
      expectReply(reply, 503, v3Error('server_error', 'engine_unavailable', message, 'model'));
    }
    const v2 = await h.signed(account.signer, 'POST', '/v2/chat/completions', {
      json: { model: 'service-mini', messages },
    });
    expectReply(v2, 503, { error: 'ENGINE_UNAVAILABLE', message, errors: { model: [message] } });
    // Nothing was reserved or charged for the refused requests.
    const ledger = await h.db('ledger_entries').where({ account_id: account.id }).whereNot({ kind: 'topup' });
    assert.equal(ledger, []);
    // Authentication still comes first.
    const anonymous = await h.request('POST', '/v3/chat/completions/create', {
      json: { model: 'service-mini', messages },
    });
    assert.is(anonymous.status, 401, anonymous.text);
  });

  test('an unexpected failure is 500 internal_error without the cause or a stack trace', async () => {
    const h = harness();
    const account = await fresh();
    await h.db.schema.renameTable('api_keys', 'api_keys_hidden');
    try {
      const reply = await h.v3(account.apiKey, 'GET', '/v3/models');
      expectReply(reply, 500, v3Error('server_error', 'internal_error', 'Internal server error.'));
      assert.not.match(reply.text, /api_keys|select|sqlite|postgres|relation/i);
    } finally {
      await h.db.schema.renameTable('api_keys_hidden', 'api_keys');
    }
    await h.db.schema.renameTable('key_pairs', 'key_pairs_hidden');
    try {
      const reply = await h.signed(account.signer, 'GET', '/v1/billing/usage');
      expectReply(reply, 500, { error: 'INTERNAL_ERROR', message: 'Internal server error.', errors: {} });
      assert.not.match(reply.text, /key_pairs|select|sqlite|postgres|relation/i);
    } finally {
      await h.db.schema.renameTable('key_pairs_hidden', 'key_pairs');
    }
    assert.is((await h.v3(account.apiKey, 'GET', '/v3/models')).status, 200);
  });

  test('in test mode the server validates its responses: a body that breaks the contract becomes a 500', async () => {
    const h = harness();
    assert.is(h.app.config.environment, 'test');
    assert.is(h.app.config.validateResponses, true);
    const account = await fresh();
    // A currency the contract does not allow (three capital letters) makes GET /admin/accounts/{id} invalid.
    await h.db('accounts').where({ id: account.id }).update({ currency: 'rub' });
    const reply = await h.admin('GET', `/admin/accounts/${account.id}`);
    assert.is(reply.status, 500, reply.text);
    assert.is(reply.body.error.code, 'internal_error');
    assert.match(reply.body.error.message, /^Response of getAccount violates the contract/);
    await h.db('accounts').where({ id: account.id }).update({ currency: 'RUB' });
    assert.is((await h.admin('GET', `/admin/accounts/${account.id}`)).status, 200);
  });

  test.run();
}
