// The plan each route carries (operation-plan.ts), read once from the contract when the router is built: the security
// scheme, the body's media types, Idempotency-Key and the header parameters validation looks at. Over HTTP: requests
// are still refused by their operation's scheme, a declared header is still validated, and other headers are not.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createRouter, sharedContract } from './contract.ts';
import { useHarness } from '../test-support/harness.ts';

const STATUS_ID = '0b6e7f52-3c1d-4e8a-9f20-5a7b8c9d0e1f';

const plans = suite('operation plans');

plans('each route carries the plan of its operation', async () => {
  const router = createRouter(await sharedContract());
  const planOf = (method: string, path: string) => router.match(method, path)?.plan;
  assert.equal(planOf('GET', `/v3/transcriptions/status/${STATUS_ID}`), {
    operationId: 'getTranscriptionStatus',
    scheme: 'bearer',
    mediaTypes: [],
    acceptsJson: false,
    acceptsMultipart: false,
    acceptsIdempotencyKey: false,
    headerParams: [],
    arrayQueryParams: [],
    noStore: false,
  });
  assert.equal(planOf('POST', '/v3/transcriptions/async/create'), {
    operationId: 'createAsyncTranscription',
    scheme: 'bearer',
    mediaTypes: ['application/json', 'multipart/form-data'],
    acceptsJson: true,
    acceptsMultipart: true,
    acceptsIdempotencyKey: true,
    headerParams: ['idempotency-key'],
    arrayQueryParams: [],
    noStore: false,
  });
  const v2 = planOf('POST', '/v2/transcriptions');
  assert.equal(
    [v2?.scheme, v2?.headerParams, v2?.acceptsJson],
    ['signed', ['x-signature-version', 'x-signature-nonce', 'idempotency-key'], false],
  );
  assert.is(planOf('GET', '/v1/billing/usage')?.scheme, 'signed');
  assert.is(planOf('GET', '/v2/results/some-id/srt')?.scheme, 'none');
  assert.is(planOf('GET', '/admin/accounts')?.scheme, 'admin');
  assert.is(planOf('GET', '/health')?.scheme, 'none');
  // An answer that carries a secret or a signed link says so in the contract (Cache-Control: no-store).
  assert.is(planOf('POST', '/v3/keys/create')?.noStore, true);
});

plans('every operation of the contract has a plan naming it', async () => {
  const api = await sharedContract();
  const router = createRouter(api);
  for (const operation of api.getOperations()) {
    const path = operation.path.replace(/\{[^}]+\}/g, 'x');
    const match = router.match(operation.method.toUpperCase(), path);
    // A literal path of the same method may win over a template with `x` in it (`/v2/transcriptions/calculate`).
    if (match?.operation !== operation) continue;
    assert.is(match.plan.operationId, operation.operationId);
    assert.ok(['bearer', 'signed', 'admin', 'none'].includes(match.plan.scheme), operation.operationId);
  }
});

plans.run();

const http = suite('operation plans over HTTP');
const harness = useHarness(http, 'sqlite');

http('each operation refuses a request without the credentials of its scheme', async () => {
  const h = harness();
  const account = await h.provision({ balance: 1 });
  const status = `/v3/transcriptions/status/${STATUS_ID}`;
  const noKey = await h.request('GET', status);
  assert.equal([noKey.status, noKey.body.error.code], [401, 'invalid_api_key']);
  assert.is((await h.v3(account.apiKey, 'GET', status)).status, 404);
  // A Bearer key is not an admin token, nor a signature.
  const admin = await h.v3(account.apiKey, 'GET', '/admin/accounts');
  assert.equal([admin.status, admin.body.error.code], [401, 'invalid_api_key']);
  const signed = await h.v3(account.apiKey, 'GET', '/v1/billing/usage');
  assert.equal([signed.status, signed.body.error], [401, 'UNAUTHORIZED']);
  assert.is((await h.signed(account.signer, 'GET', '/v1/billing/usage')).status, 200);
  assert.is((await h.request('GET', '/health')).status, 200);
});

http('a declared header is validated; headers the operation does not declare are not looked at', async () => {
  const h = harness();
  const account = await h.provision({ balance: 1 });
  const refused = await h.v3(account.apiKey, 'POST', '/v3/keys/create', {
    json: { name: 'x' },
    headers: { 'Idempotency-Key': 'has a space' },
  });
  assert.equal(
    [refused.status, refused.body.error.code, refused.body.error.param],
    [400, 'invalid_parameter', 'idempotency-key'],
  );
  const created = await h.v3(account.apiKey, 'POST', '/v3/keys/create', {
    json: { name: 'y' },
    headers: { 'Idempotency-Key': 'plan-1', 'X-Unrelated': 'anything at all' },
  });
  assert.is(created.status, 201, created.text);
});

http.run();
