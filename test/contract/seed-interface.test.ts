// The interface document's binding facts, asserted on the bundled OpenAPI document: the 15 endpoints (method, path,
// auth scheme, success status, content types), the v3 and v2 transcription objects, the state and machine-code
// enums, and the limits. Removing any of them from the contract fails a test here.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { openapi, operation, resolve, schema } from './documents.ts';

type Json = Record<string, unknown>;
type Auth = 'none' | 'bearer' | 'signed';

const endpoints: [string, string, Auth, number, string[], string[]][] = [
  // method, path, auth, success status, request content types, success response content types
  ['GET', '/health', 'none', 200, [], ['application/json']],
  ['POST', '/v3/transcriptions/sync/create', 'bearer', 200, ['multipart/form-data'], ['application/json']],
  [
    'POST',
    '/v3/transcriptions/async/create',
    'bearer',
    202,
    ['application/json', 'multipart/form-data'],
    ['application/json'],
  ],
  ['POST', '/v3/transcriptions/stream/create', 'bearer', 201, [], ['application/json']],
  ['GET', '/v3/transcriptions/status/{id}', 'bearer', 200, [], ['application/json']],
  ['GET', '/v3/models', 'bearer', 200, [], ['application/json']],
  [
    'POST',
    '/v3/chat/completions/create',
    'bearer',
    200,
    ['application/json'],
    ['application/json', 'text/event-stream'],
  ],
  ['POST', '/v3/embeddings/create', 'bearer', 200, ['application/json'], ['application/json']],
  ['POST', '/v3/billing/calculate', 'bearer', 200, ['application/json'], ['application/json']],
  ['POST', '/v2/transcriptions/calculate', 'signed', 200, ['application/json'], ['application/json']],
  ['POST', '/v2/transcriptions', 'signed', 201, ['multipart/form-data'], ['application/json']],
  ['GET', '/v2/transcriptions/{id}', 'signed', 200, [], ['application/json']],
  [
    'POST',
    '/v2/transcriptions/{id}/chat/completions',
    'signed',
    200,
    ['application/json'],
    ['application/json', 'text/event-stream'],
  ],
  ['POST', '/v2/chat/completions', 'signed', 200, ['application/json'], ['application/json', 'text/event-stream']],
  ['GET', '/v1/billing/usage', 'signed', 200, [], ['application/json']],
];

function authOf(op: Json): Auth {
  const security = op.security as Record<string, string[]>[] | undefined;
  if (!security || security.length === 0) return 'none';
  assert.is(security.length, 1, `${op.operationId}: one security requirement`);
  const names = Object.keys(security[0]!).sort();
  if (names.join() === 'BearerAuth') return 'bearer';
  if (names.join() === 'PublicKey,Signature,Timestamp') return 'signed';
  throw new Error(`${op.operationId}: unexpected security ${names.join()}`);
}

const statusOf = (op: Json) => Object.keys(op.responses as Json).filter((s) => /^2/.test(s));
const contentTypes = (node: unknown) => Object.keys((resolve<Json>(openapi, node)?.content as Json) ?? {}).sort();

test('the 15 endpoints of the interface: method, path, auth scheme, success status and content types', () => {
  for (const [method, path, auth, status, requestTypes, responseTypes] of endpoints) {
    const op = operation(method, path);
    const label = `${method} ${path}`;
    assert.is(authOf(op), auth, `${label} auth`);
    assert.equal(statusOf(op), [String(status)], `${label} success status`);
    assert.equal(contentTypes(op.requestBody), [...requestTypes].sort(), `${label} request content types`);
    assert.equal(contentTypes(op.responses[String(status)]), [...responseTypes].sort(), `${label} response types`);
  }
});

test('the signed scheme is three headers sent together', () => {
  const schemes = openapi.components.securitySchemes as Record<string, Json>;
  assert.equal(
    ['PublicKey', 'Timestamp', 'Signature'].map((n) => [schemes[n]!.type, schemes[n]!.in, schemes[n]!.name]),
    [
      ['apiKey', 'header', 'X-Public-Key'],
      ['apiKey', 'header', 'X-Timestamp'],
      ['apiKey', 'header', 'X-Signature'],
    ],
  );
  assert.equal([schemes.BearerAuth!.type, schemes.BearerAuth!.scheme], ['http', 'bearer']);
});

/** The JSON types a schema admits (the union over oneOf/anyOf members). */
function typesOf(node: unknown): string[] {
  const resolved = resolve<Json>(openapi, node);
  const members = (resolved.oneOf ?? resolved.anyOf) as unknown[] | undefined;
  if (members) return members.flatMap(typesOf);
  if (resolved.type) return ([] as string[]).concat(resolved.type as string | string[]);
  if (resolved.const !== undefined) return [resolved.const === null ? 'null' : typeof resolved.const];
  return [];
}

function propertyTypes(schemaName: string): Record<string, string[]> {
  const properties = schema(schemaName).properties as Record<string, Json>;
  return Object.fromEntries(
    Object.entries(properties).map(([name, node]) => {
      return [name, typesOf(node)];
    }),
  );
}

function assertFields(schemaName: string, expected: Record<string, string>) {
  const actual = propertyTypes(schemaName);
  for (const [field, type] of Object.entries(expected)) {
    assert.ok(actual[field], `${schemaName}.${field} is missing`);
    assert.ok(actual[field]!.includes(type), `${schemaName}.${field} is ${actual[field]!.join('|')}, expected ${type}`);
  }
}

test('the v3 transcription object has the interface fields with their types', () => {
  assertFields('Transcription', {
    id: 'string',
    status: 'string',
    progress: 'integer',
    source_type: 'string',
    filename: 'string',
    file_size: 'integer',
    duration_minutes: 'number',
    minutes_billed: 'integer',
    cost: 'number',
    language: 'string',
    priority: 'string',
    mode: 'string',
    diarization: 'boolean',
    output: 'object',
    result: 'object',
    error: 'object',
    created_at: 'string',
    started_at: 'string',
    completed_at: 'string',
  });
  const progress = resolve<Json>(openapi, (schema('Transcription').properties as Json).progress);
  assert.equal([progress.minimum, progress.maximum], [0, 100]);
  const word = schema('Word');
  assert.equal(Object.keys(word.properties as Json).slice(0, 3), ['word', 'start', 'end']);
});

test('the v2 transcription object has the interface fields with their types', () => {
  assertFields('V2Transcription', {
    id: 'string',
    status: 'string',
    progress: 'integer',
    duration_seconds: 'number',
    duration_minutes: 'number',
    minutes_billed: 'integer',
    cost: 'number',
    priority_type: 'string',
    filename: 'string',
    file_size: 'integer',
    source_type: 'string',
    language: 'string',
    normalization_enabled: 'boolean',
    results: 'object',
    recognized_speakers: 'array',
    ai_analysis: 'object',
    error_message: 'string',
    created_at: 'string',
    started_at: 'string',
    completed_at: 'string',
    billed_at: 'string',
  });
  for (const nullable of [
    'results',
    'ai_analysis',
    'error_message',
    'created_at',
    'started_at',
    'completed_at',
    'billed_at',
  ]) {
    assert.ok(propertyTypes('V2Transcription')[nullable]!.includes('null'), `V2Transcription.${nullable} is nullable`);
  }
  const status = resolve<Json>(openapi, (schema('V2Transcription').properties as Json).status);
  for (const value of ['pending', 'processing', 'completed'])
    assert.ok((status.enum as string[]).includes(value), value);
});

test('the v3 state enum is exactly the seven documented states', () => {
  assert.equal(schema('TranscriptionStatus').enum, [
    'created',
    'downloading',
    'ready',
    'processing',
    'completed',
    'failed',
    'cancelled',
  ]);
});

test('the machine-code enum holds every documented code, and the error object its four fields', () => {
  const codes = schema('ErrorCode').enum as string[];
  for (const code of [
    'invalid_api_key',
    'insufficient_balance',
    'rate_limit_exceeded',
    'too_many_concurrent_jobs',
    'download_failed',
    'unsupported_format',
    'file_too_large',
    'duration_exceeded',
    'task_failed',
    'user_blocked',
    'key_limit_exceeded',
    'model_not_found',
  ]) {
    assert.ok(codes.includes(code), `ErrorCode lacks ${code}`);
  }
  assert.equal(schema('ErrorObject').required, ['type', 'code', 'message', 'param']);
  assert.equal(schema('ErrorType').enum, [
    'invalid_request_error',
    'authentication_error',
    'insufficient_quota',
    'permission_error',
    'not_found_error',
    'rate_limit_error',
    'server_error',
  ]);
  assert.equal(schema('V2ErrorResponse').required, ['error', 'message', 'errors']);
});

const limitsOf = (method: string, path: string) => (operation(method, path)['x-limits'] ?? {}) as Json;
const requestSchema = (method: string, path: string, type = 'application/json') =>
  resolve<Json>(openapi, ((operation(method, path).requestBody as Json).content as Json)[type] as Json).schema;
const prop = (node: unknown, name: string) =>
  resolve<Json>(openapi, (resolve<Json>(openapi, node).properties as Json)[name]);

test('limits: sync 25 MB and 5 minutes, 60 s stream link, 100 keys, 10 requests per second, 5 free chats', () => {
  assert.equal(limitsOf('POST', '/v3/transcriptions/sync/create'), {
    max_file_bytes: 25 * 1024 * 1024,
    max_duration_seconds: 300,
  });
  assert.equal(limitsOf('POST', '/v3/transcriptions/stream/create'), { ticket_ttl_seconds: 60 });
  assert.equal(limitsOf('POST', '/v3/keys/create'), { max_live_keys_per_account: 100 });
  assert.equal(limitsOf('POST', '/v2/transcriptions/{id}/chat/completions'), {
    free_mini_requests_per_transcription: 5,
  });
  assert.is((openapi['x-rate-limit'] as Json).requests_per_second, 10);
});

test('limits and defaults of v3 chat: temperature 0–2 default 0.7, max_tokens 1–32000 default 32000', () => {
  const body = requestSchema('POST', '/v3/chat/completions/create');
  const temperature = prop(body, 'temperature');
  assert.equal([temperature.minimum, temperature.maximum, temperature.default], [0, 2, 0.7]);
  const maxTokens = prop(body, 'max_tokens');
  assert.equal([maxTokens.type, maxTokens.minimum, maxTokens.maximum, maxTokens.default], ['integer', 1, 32000, 32000]);
  assert.is(prop(body, 'stream').default, false);
  const messages = prop(body, 'messages');
  assert.is(messages.minItems, 1);
  assert.equal(prop(messages.items, 'role').enum, ['system', 'user', 'assistant']);
  assert.equal(prop(body, 'model').enum, ['service-mini', 'service-pro']);
  assert.equal([...(resolve<Json>(openapi, body).required as string[])].sort(), ['messages', 'model']);
});

test('limits and defaults of v2 transcript chat: temperature 0–2 default 0.1, max tokens 1–32000', () => {
  const body = requestSchema('POST', '/v2/transcriptions/{id}/chat/completions');
  const temperature = prop(body, 'temperature');
  assert.equal([temperature.minimum, temperature.maximum, temperature.default], [0, 2, 0.1]);
  for (const name of ['maxTokens', 'max_tokens']) {
    const field = prop(body, name);
    assert.equal([field.minimum, field.maximum], [1, 32000], name);
  }
  assert.is(prop(body, 'model').default, 'service-mini');
  assert.is(prop(body, 'messages').minItems, 1);
});

test('v3 transcription defaults: language ru, priority queue (sync lightning), diarization false, output defaults', () => {
  const asyncBody = requestSchema('POST', '/v3/transcriptions/async/create');
  assert.is(prop(asyncBody, 'language').default, 'ru');
  assert.is(prop(asyncBody, 'priority').default, 'queue');
  assert.is(prop(asyncBody, 'diarization').default, false);
  const output = prop(asyncBody, 'output');
  assert.is(prop(output, 'format').default, 'json');
  assert.equal(prop(output, 'format').enum, ['json']);
  assert.is(prop(output, 'word_timestamps').default, true);
  const syncBody = requestSchema('POST', '/v3/transcriptions/sync/create', 'multipart/form-data');
  assert.is(prop(syncBody, 'priority').default, 'lightning');
  assert.ok((resolve<Json>(openapi, syncBody).required as string[]).includes('file'));
});

test.run();
