// error_type_status_map: the `error.type` of every v3, admin and OpenAI drop-in error answer is the type the interface
// document's HTTP status map gives its status (400 and 409 invalid_request_error, 401 authentication_error, 402
// insufficient_quota, 403 permission_error, 404 not_found_error, 429 rate_limit_error, 5xx server_error; 405 and 415
// are requests to fix, invalid_request_error). The map is written here, not read from the document under test, so a
// looser `--spec` cannot weaken it. The shape of the body is error_body_conformance's concern: a body without a
// string `error.type` is left to it.
import { registerCheck, type ResponseContext } from '../core/registry.ts';
import { errorEnvelopeOf } from '../core/spec.ts';

const TYPE_BY_STATUS: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'insufficient_quota',
  403: 'permission_error',
  404: 'not_found_error',
  405: 'invalid_request_error',
  409: 'invalid_request_error',
  415: 'invalid_request_error',
  429: 'rate_limit_error',
};

/** The document's error type for an HTTP status; undefined where the document fixes none (other 4xx). */
export const errorTypeForStatus = (status: number): string | undefined =>
  status >= 500 && status < 600 ? 'server_error' : TYPE_BY_STATUS[status];

export function error_type_status_map({ exchange }: ResponseContext) {
  const { status, body } = exchange.response;
  const path = new URL(exchange.request.url).pathname;
  if (status < 400 || path === '/health' || errorEnvelopeOf(path) !== 'ErrorResponse') return;
  const type = (body as { error?: { type?: unknown } } | undefined)?.error?.type;
  const expected = errorTypeForStatus(status);
  if (typeof type !== 'string' || expected === undefined || type === expected) return;
  return {
    title: 'Error type does not match the status',
    message: `${status} came with type ${type}; the document's status map gives ${expected}`,
    severity: 'medium' as const,
  };
}

registerCheck('error_type_status_map', 'response', error_type_status_map);
