// The contract's own conventions, checked over every operation of the bundled documents: security per version,
// error bodies per version, X-Request-Id / rate-limit / Retry-After headers, links from creates, webhooks, the SSE
// description, and the AsyncAPI stream channel (closed messages with a `type` const, close codes, shared schemas).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as sdk from '../../generated/client/sdk.gen.ts';
import { asyncapi, openapi, operation, operations, resolve, type Operation } from './documents.ts';

type Json = Record<string, unknown>;

const versionOf = (op: Operation) =>
  op.path.startsWith('/v3') ? 'v3' : op.path.startsWith('/admin') ? 'admin' : op.path === '/health' ? 'health' : 'v2';
/** The v2 result files (the link's target and its per-file operations): the signed link is their only credential. */
const isResultFile = (op: Operation) => op.path.startsWith('/v2/results/');
const schemeNames = (op: Operation) =>
  (op.security ?? [])
    .flatMap((r) => Object.keys(r))
    .sort()
    .join();
const bodySchemaRef = (response: Json) => {
  const content = (resolve<Json>(openapi, response).content ?? {}) as Record<string, Json>;
  return Object.values(content).map((media) => ((media.schema as Json)?.$ref as string) ?? 'inline');
};

test('every operation has a verb+noun operationId, a summary, a description and exactly one tag', () => {
  const ids = new Set<string>();
  for (const op of operations) {
    assert.match(op.operationId, /^[a-z]+[A-Z][A-Za-z0-9]+$/, op.path);
    assert.not.ok(ids.has(op.operationId), `duplicate ${op.operationId}`);
    ids.add(op.operationId);
    assert.ok(typeof op.summary === 'string' && !String(op.summary).endsWith('.'), `${op.operationId} summary`);
    assert.ok(
      typeof op.description === 'string' && String(op.description).length > 20,
      `${op.operationId} description`,
    );
    assert.is(op.tags?.length, 1, `${op.operationId} tags`);
  }
  assert.ok(operations.length >= 40, `only ${operations.length} operations`);
});

test('every operationId is the name of its generated SDK function (the server keys its handlers by both)', () => {
  const functions = Object.keys(sdk).sort();
  assert.equal(operations.map((op) => op.operationId).sort(), functions);
});

test('security: Bearer on v3, the three signed headers together on v2/v1, none on /health, AdminToken on /admin', () => {
  for (const op of operations) {
    const expected = {
      v3: 'BearerAuth',
      v2: 'PublicKey,Signature,Timestamp',
      health: '',
      admin: 'AdminToken',
    }[versionOf(op)];
    // The v2 result files are reached through signed links, so they carry no headers (documented extension).
    if (isResultFile(op)) {
      assert.is(schemeNames(op), '');
      continue;
    }
    assert.is(schemeNames(op), expected, `${op.operationId} security`);
    if (expected.includes(','))
      assert.is(op.security!.length, 1, `${op.operationId}: the signed headers form one requirement`);
  }
});

test('every error response has the per-status body of its version: v3 envelope or v2 validation body', () => {
  for (const op of operations) {
    for (const [status, response] of Object.entries(op.responses)) {
      if (!/^[45]/.test(status) || versionOf(op) === 'health') continue;
      // The exact type, code and kind each body allows is tested in error-bodies.test.ts.
      const expected =
        versionOf(op) === 'v2'
          ? /^#\/components\/schemas\/V2[A-Za-z]+ErrorResponse$/
          : /^#\/components\/schemas\/(?!V2)[A-Za-z]+ErrorResponse$/;
      const refs = bodySchemaRef(response);
      assert.is(refs.length, 1, `${op.operationId} ${status}`);
      assert.match(refs[0]!, expected, `${op.operationId} ${status}`);
      assert.not.equal(refs[0], '#/components/schemas/ErrorResponse', `${op.operationId} ${status} is not pinned`);
    }
  }
});

test('every authenticated operation documents 401, 429 and 500; every operation with input documents 400', () => {
  for (const op of operations) {
    if (versionOf(op) === 'health' || isResultFile(op)) continue;
    for (const status of ['401', '429', '500']) {
      if (versionOf(op) === 'admin' && status === '429') continue;
      assert.ok(op.responses[status], `${op.operationId} lacks ${status}`);
    }
    const hasInput = op.requestBody || (op.parameters ?? []).some((p) => resolve<Json>(openapi, p).in !== 'header');
    if (hasInput) assert.ok(op.responses['400'], `${op.operationId} lacks 400`);
  }
});

test('every response declares X-Request-Id; authenticated successes declare RateLimit-*; every 429 declares Retry-After', () => {
  for (const op of operations) {
    for (const [status, node] of Object.entries(op.responses)) {
      const headers = Object.keys((resolve<Json>(openapi, node).headers ?? {}) as Json);
      assert.ok(headers.includes('X-Request-Id'), `${op.operationId} ${status} lacks X-Request-Id`);
      const rateLimited = ['v3', 'v2'].includes(versionOf(op)) && !isResultFile(op);
      if (/^2/.test(status) && rateLimited) {
        for (const h of ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset']) {
          assert.ok(headers.includes(h), `${op.operationId} ${status} lacks ${h}`);
        }
      }
      if (status === '429') assert.ok(headers.includes('Retry-After'), `${op.operationId} 429 lacks Retry-After`);
    }
  }
});

test('creating POSTs accept Idempotency-Key', () => {
  for (const id of [
    'createSyncTranscription',
    'createAsyncTranscription',
    'createStreamSession',
    'createApiKey',
    'createWebhook',
    'createV2Transcription',
  ]) {
    const op = operations.find((o) => o.operationId === id)!;
    const names = (op.parameters ?? []).map((p) => resolve<Json>(openapi, p).name);
    assert.ok(names.includes('Idempotency-Key'), `${id} lacks Idempotency-Key`);
  }
});

test('links lead from each transcription create to its status, cancel and result operations', () => {
  const linked = (method: string, path: string, status: string) =>
    Object.values(
      (resolve<Json>(openapi, operation(method, path).responses[status]).links ?? {}) as Record<string, Json>,
    )
      .map((link) => link.operationId)
      .sort();
  const v3 = ['cancelTranscription', 'getTranscriptionResult', 'getTranscriptionStatus'];
  assert.equal(linked('POST', '/v3/transcriptions/sync/create', '200'), v3);
  assert.equal(linked('POST', '/v3/transcriptions/async/create', '202'), v3);
  assert.ok(linked('POST', '/v2/transcriptions', '201').includes('getV2Transcription'));
  assert.equal(linked('POST', '/v3/webhooks/create', '201'), [
    'deleteWebhook',
    'listWebhookDeliveries',
    'testWebhook',
    'updateWebhook',
  ]);
  assert.equal(linked('POST', '/v3/keys/create', '201'), ['revokeApiKey']);
  assert.ok(linked('POST', '/admin/accounts', '201').includes('getAccount'));
});

test('every link names an existing operation, fills its path parameters and reads a required response field', () => {
  let checked = 0;
  for (const op of operations) {
    for (const [status, node] of Object.entries(op.responses)) {
      const response = resolve<Json>(openapi, node);
      for (const [name, link] of Object.entries((response.links ?? {}) as Record<string, Json>)) {
        const target = operations.find((o) => o.operationId === link.operationId);
        assert.ok(target, `${op.operationId} ${status} link ${name}: no operation ${String(link.operationId)}`);
        const pathParams = (target!.parameters ?? [])
          .map((p) => resolve<Json>(openapi, p))
          .filter((p) => p.in === 'path');
        for (const param of pathParams) {
          const expression = (link.parameters as Json)?.[param.name as string] as string | undefined;
          assert.ok(expression, `${op.operationId} link ${name} does not fill ${String(param.name)}`);
          const fields = expression!.replace('$response.body#/', '').split('/');
          let schemaNode = resolve<Json>(openapi, ((response.content as Json)['application/json'] as Json).schema);
          for (const field of fields) {
            assert.ok(
              (schemaNode.required as string[] | undefined)?.includes(field),
              `${op.operationId} link ${name}: ${field} is not a required field`,
            );
            schemaNode = resolve<Json>(openapi, (schemaNode.properties as Json)[field]);
          }
          checked += 1;
        }
      }
    }
  }
  assert.ok(checked >= 15, `only ${checked} link parameters`);
});

test('top-level webhooks describe both events with Standard Webhooks signature headers', () => {
  assert.equal(Object.keys(openapi.webhooks).sort(), ['transcription.completed', 'transcription.failed']);
  for (const [name, item] of Object.entries(openapi.webhooks)) {
    const post = item.post as Json;
    const headers = ((post.parameters ?? []) as Json[])
      .map((p) => resolve<Json>(openapi, p))
      .filter((p) => p.in === 'header');
    assert.equal(
      headers.map((h) => String(h.name).toLowerCase()).sort(),
      ['webhook-id', 'webhook-signature', 'webhook-timestamp'],
      name,
    );
    const body = resolve<Json>(openapi, ((post.requestBody as Json).content as Json)['application/json'] as Json);
    const payload = resolve<Json>(openapi, body.schema);
    assert.equal(resolve<Json>(openapi, (payload.properties as Json).type).enum, [name]);
  }
});

test('the SSE chat response is described per event: chunk, usage chunk, error and [DONE]', () => {
  const media = (
    resolve<Json>(openapi, operation('POST', '/v3/chat/completions/create').responses['200']).content as Json
  )['text/event-stream'] as Json;
  const event = resolve<Json>(openapi, media.schema);
  const variants = (event.oneOf as Json[]).map((v) => (v.$ref as string | undefined)?.split('/').pop());
  assert.equal(variants.sort(), [
    'ChatCompletionChunk',
    'ChatCompletionStreamDone',
    'ChatCompletionStreamError',
    'ChatCompletionUsageChunk',
  ]);
  assert.equal(resolve<Json>(openapi, { $ref: '#/components/schemas/ChatCompletionStreamDone' }).enum, ['[DONE]']);
});

// AsyncAPI
const streamChannel = () => {
  const found = Object.values(asyncapi.channels).find((c) => c.address === '/v3/transcriptions/stream');
  if (!found) throw new Error('no channel with address /v3/transcriptions/stream');
  return found;
};

test('the stream channel takes its ticket in bindings.ws.query and lists its messages', () => {
  const channel = streamChannel();
  const query = ((channel.bindings as Json).ws as Json).query as Json;
  assert.ok((query.required as string[]).includes('ticket'));
  assert.ok((query.properties as Json).ticket);
  assert.not.ok(channel.parameters, 'the handshake query is not a channel parameter');
});

test('every stream operation has one message and an action; every JSON message is a closed object with a type const', () => {
  const types: string[] = [];
  for (const [id, op] of Object.entries(asyncapi.operations)) {
    assert.ok(['send', 'receive'].includes(op.action as string), `${id} action`);
    assert.is((op.messages as unknown[]).length, 1, `${id} has one message`);
  }
  const channel = streamChannel();
  for (const ref of Object.values(channel.messages as Record<string, Json>)) {
    const message = resolve<Json>(asyncapi, ref);
    const payload = resolve<Json>(asyncapi, message.payload);
    if (message.contentType === 'application/octet-stream') {
      assert.is(payload.format, 'binary');
      continue;
    }
    assert.is(payload.type, 'object', `${message.name}`);
    assert.is(payload.additionalProperties, false, `${message.name} is closed`);
    const type = resolve<Json>(asyncapi, (payload.properties as Json).type).const as string;
    assert.type(type, 'string', `${message.name} has a type const`);
    types.push(type);
  }
  for (const t of [
    'session',
    'keepalive',
    'finalize',
    'end',
    'session.started',
    'transcript.partial',
    'transcript.final',
    'session.completed',
    'error',
  ]) {
    assert.ok(types.includes(t), `no ${t} message`);
  }
});

test('close codes are enumerated in the document, and x-close-codes lists the same ones', () => {
  const codes = asyncapi.components.schemas.StreamCloseCode!.enum as number[];
  // The interface document's codes, and 1001 (going away: a server shutting down), an extension.
  assert.equal(
    [...codes].sort((a, b) => a - b),
    [1000, 1001, 1011, 4400, 4401, 4402, 4408, 4429],
  );
  const listed = (asyncapi.channels.transcriptionStream!['x-close-codes'] as { code: number }[]).map((c) => c.code);
  assert.equal(
    [...listed].sort((a, b) => a - b),
    [...codes].sort((a, b) => a - b),
  );
});

test('schemas shared with HTTP are one definition: ErrorObject and Word are identical in both bundles', () => {
  for (const name of ['ErrorObject', 'Word', 'TranscriptionCompletedEvent', 'TranscriptionFailedEvent']) {
    assert.equal(asyncapi.components.schemas[name], openapi.components.schemas[name], name);
  }
});

test.run();
