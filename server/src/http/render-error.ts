// The one module every error leaves through: the v3 envelope for /v3 and /admin, the validation body for /v2 and /v1.
import type { ErrorObject, ErrorType, V2ErrorKind, V2ErrorResponse } from '../../../generated/client/types.gen.ts';
import type { ApiError } from './api-error.ts';

export type ApiVersion = 'v3' | 'v2';

/**
 * The v2 body belongs to `/v2` and to what `/v1` serves (its usage statistics). Any other `/v1` path gets the v3
 * body: it is almost always an OpenAI-style client whose base URL ends in `/v1` (OpenAI's own), and the v3 body is
 * the one those libraries read their message from.
 */
export function versionOfPath(path: string): ApiVersion {
  return path.startsWith('/v2/') || path.startsWith('/v1/billing/') ? 'v2' : 'v3';
}

export function errorTypeOf(status: number): ErrorType {
  if (status === 401) return 'authentication_error';
  if (status === 402) return 'insufficient_quota';
  if (status === 403) return 'permission_error';
  if (status === 404) return 'not_found_error';
  if (status === 429) return 'rate_limit_error';
  if (status >= 500) return 'server_error';
  return 'invalid_request_error';
}

function v2KindOf(error: ApiError): V2ErrorKind {
  // A v2 transcript that cannot be asked about yet (400 like a validation error, but its own kind).
  if (error.code === 'not_ready') return 'NOT_READY';
  if (error.code === 'database_unavailable' || error.code === 'insufficient_storage') return 'SERVICE_UNAVAILABLE';
  switch (error.status) {
    case 401:
      return 'UNAUTHORIZED';
    case 402:
      return 'INSUFFICIENT_FUNDS';
    case 403:
      return 'FORBIDDEN';
    case 404:
      return 'NOT_FOUND';
    case 409:
      return 'CONFLICT';
    case 415:
      return 'UNSUPPORTED_MEDIA_TYPE';
    case 429:
      return 'RATE_LIMITED';
    case 503:
      return 'ENGINE_UNAVAILABLE';
    default:
      return error.status >= 500 ? 'INTERNAL_ERROR' : 'VALIDATION_ERROR';
  }
}

/**
 * The body of an error. v3 bodies are one of the contract's per-status `ErrorResponse` variants: the type comes from
 * the status (`errorTypeOf`), so only the code must be one the status may carry, which the response check of the
 * tests verifies on every answer.
 */
export function renderError(error: ApiError, version: ApiVersion): { error: ErrorObject } | V2ErrorResponse {
  if (version === 'v2') {
    return {
      error: v2KindOf(error),
      message: error.message,
      errors: error.param ? { [error.param]: [error.message] } : {},
    };
  }
  return {
    error: {
      type: errorTypeOf(error.status),
      code: error.code as ErrorObject['code'],
      message: error.message,
      param: error.param,
    },
  };
}
