// Every error response of the contract pins what the interface document's status map gives its status: on /v3 and
// /admin the `error.type` (400, 405, 409, 415 invalid_request_error; 401 authentication_error; 402
// insufficient_quota; 403 permission_error; 404 not_found_error; 429 rate_limit_error; 5xx server_error) and the
// codes that status may carry; on /v2 and /v1 the `error` kind. Checked by validating bodies against each declared
// response, so a wrong type for a status is refused by the contract itself, and by the generated client's types.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { ErrorResponse, GetTranscriptionStatusError, V2ErrorKind } from '../../generated/client/types.gen.ts';
import { createAjv, escapePointer, openapi, operations, resolve, type Operation } from './documents.ts';

type Json = Record<string, unknown>;

// The interface document's "HTTP status map"; 405 and 415 are request errors by our decision (contract.md).
const typeOfStatus: Record<string, string> = {
  '400': 'invalid_request_error',
  '401': 'authentication_error',
  '402': 'insufficient_quota',
  '403': 'permission_error',
  '404': 'not_found_error',
  '405': 'invalid_request_error',
  '409': 'invalid_request_error',
  '415': 'invalid_request_error',
  '429': 'rate_limit_error',
  '500': 'server_error',
  '503': 'server_error',
};
const allTypes = [...new Set(Object.values(typeOfStatus))];

// The code each status may carry: the document's machine codes placed by contract.md's code → HTTP decisions.
const codesOfStatus: Record<string, string[]> = {
  '400': [
    'invalid_parameter',
    'missing_parameter',
    'invalid_json',
    'file_too_large',
    'duration_exceeded',
    'unsupported_format',
    'unsupported_language',
    'download_failed',
    'context_length_exceeded',
  ],
  '401': ['invalid_api_key'],
  '402': ['insufficient_balance'],
  '403': ['user_blocked'],
  '404': ['not_found', 'model_not_found'],
  '405': ['method_not_allowed'],
  '409': ['key_limit_exceeded', 'idempotency_key_reused', 'invalid_state', 'user_blocked'],
  '415': ['unsupported_media_type'],
  '429': ['rate_limit_exceeded', 'too_many_concurrent_jobs'],
  '500': ['internal_error', 'task_failed'],
  '503': ['engine_unavailable', 'database_unavailable', 'insufficient_storage'],
};

const v2KindsOfStatus: Record<string, V2ErrorKind[]> = {
  '400': ['VALIDATION_ERROR', 'NOT_READY'],
  '401': ['UNAUTHORIZED'],
  '402': ['INSUFFICIENT_FUNDS'],
  '403': ['FORBIDDEN'],
  '404': ['NOT_FOUND'],
  '409': ['CONFLICT'],
  '415': ['UNSUPPORTED_MEDIA_TYPE'],
  '429': ['RATE_LIMITED'],
  '500': ['INTERNAL_ERROR'],
  '503': ['ENGINE_UNAVAILABLE', 'SERVICE_UNAVAILABLE'],
};
const allV2Kinds = [...new Set(Object.values(v2KindsOfStatus).flat())];
const allCodes = [...new Set(Object.values(codesOfStatus).flat())];

const isV2 = (op: Operation) => op.path.startsWith('/v2/') || op.path.startsWith('/v1/');
const errorResponses = operations.flatMap((op) =>
  Object.keys(op.responses)
    .filter((status) => /^[45]/.test(status) && op.path !== '/health')
    .map((status) => ({ op, status })),
);

const ajv = createAjv();
function validatorOf(op: Operation, status: string) {
  const response = resolve<Json>(openapi, op.responses[status]);
  const content = (response.content ?? {}) as Record<string, Json>;
  assert.ok(content['application/json'], `${op.operationId} ${status} declares no JSON body`);
  const location = `openapi.json#/paths/${escapePointer(op.path)}/${op.method}/responses/${status}`;
  const pointer = response === op.responses[status] ? location : String((op.responses[status] as Json).$ref);
  const ref = pointer.startsWith('#') ? `openapi.json${pointer}` : pointer;
  return ajv.compile({ $ref: `${ref}/content/application~1json/schema` });
}

test('every v3 and admin error response allows exactly the status map type for its status', () => {
  let pinned = 0;
  const v3 = errorResponses.filter(({ op }) => !isV2(op));
  for (const { op, status } of v3) {
    const expected = typeOfStatus[status];
    assert.ok(expected, `${op.operationId} declares ${status}, which the status map does not name`);
    const validate = validatorOf(op, status);
    for (const type of allTypes) {
      const body = { error: { type, code: codesOfStatus[status]![0], message: 'm', param: null } };
      assert.is(validate(body), type === expected, `${op.operationId} ${status} with type ${type}`);
    }
    pinned += 1;
  }
  assert.is(pinned, v3.length);
  assert.ok(pinned >= 190, `only ${pinned} v3/admin error responses`);
});

test('every v3 and admin error response takes exactly the codes its status may carry', () => {
  for (const { op, status } of errorResponses.filter(({ op }) => !isV2(op))) {
    const validate = validatorOf(op, status);
    for (const code of allCodes) {
      const body = { error: { type: typeOfStatus[status], code, message: 'm', param: null } };
      assert.is(validate(body), codesOfStatus[status]!.includes(code), `${op.operationId} ${status} code ${code}`);
    }
  }
});

test('every v2 and v1 error response pins the error kind of its status', () => {
  const v2 = errorResponses.filter(({ op }) => isV2(op));
  assert.ok(v2.length >= 40, `only ${v2.length} v2/v1 error responses`);
  for (const { op, status } of v2) {
    assert.ok(v2KindsOfStatus[status], `${op.operationId} declares ${status}`);
    const validate = validatorOf(op, status);
    for (const kind of allV2Kinds) {
      const body = { error: kind, message: 'm', errors: {} };
      assert.is(validate(body), v2KindsOfStatus[status]!.includes(kind), `${op.operationId} ${status} ${kind}`);
    }
  }
});

test('ErrorResponse, the body of answers outside every operation, is the union of the per-status bodies', () => {
  const validate = ajv.compile({ $ref: 'openapi.json#/components/schemas/ErrorResponse' });
  for (const [status, codes] of Object.entries(codesOfStatus))
    for (const code of codes)
      for (const type of allTypes) {
        const ok =
          type === typeOfStatus[status] ||
          Object.entries(codesOfStatus).some(
            ([other, otherCodes]) => typeOfStatus[other] === type && otherCodes.includes(code),
          );
        assert.is(validate({ error: { type, code, message: 'm', param: null } }), ok, `${type} ${code}`);
      }
});

// Compiled by `tsc` in `npm run lint`: a client can switch on the generated error's type exhaustively and reads the
// codes narrowed to that type. A type the contract stopped pinning would make `unreachable` fail to compile.
function describeStatusError(body: GetTranscriptionStatusError): string {
  const error = body.error;
  switch (error.type) {
    case 'invalid_request_error':
      return `fix ${error.param ?? 'the request'} (${error.code})`;
    case 'authentication_error':
      return error.code satisfies 'invalid_api_key';
    case 'permission_error':
      return error.code satisfies 'user_blocked';
    case 'not_found_error':
      return error.code satisfies 'not_found' | 'model_not_found';
    case 'rate_limit_error':
      return error.code satisfies 'rate_limit_exceeded' | 'too_many_concurrent_jobs';
    case 'server_error':
      return error.code satisfies
        'internal_error' | 'task_failed' | 'engine_unavailable' | 'database_unavailable' | 'insufficient_storage';
    default: {
      const unreachable: never = error;
      return unreachable;
    }
  }
}

test('the generated types let a client switch on error.type exhaustively', () => {
  const notFound: ErrorResponse = {
    error: { type: 'not_found_error', code: 'not_found', message: 'No such transcription.', param: 'id' },
  };
  assert.is(describeStatusError(notFound as GetTranscriptionStatusError), 'not_found');
  const blocked = { error: { type: 'permission_error', code: 'user_blocked', message: 'x', param: null } } as const;
  assert.is(describeStatusError(blocked), 'user_blocked');
});

test.run();
