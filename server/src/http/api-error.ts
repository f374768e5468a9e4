// Errors are values of the contract's error model, created here and rendered in one place (render-error.ts).
import type { ErrorCode } from '../../../generated/client/types.gen.ts';

/**
 * The contract's codes plus two that only v2 bodies carry (they have no `code`, only a kind): `invalid_link`, a
 * refused v2 result link (rendered as FORBIDDEN), and `not_ready`, a v2 transcript chat before the transcript exists
 * (rendered as NOT_READY).
 */
export type ServerErrorCode = ErrorCode | 'invalid_link' | 'not_ready';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: ServerErrorCode,
    message: string,
    readonly param: string | null = null,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export const errors = {
  invalidParameter: (param: string, message: string) => new ApiError(400, 'invalid_parameter', message, param),
  missingParameter: (param: string) => new ApiError(400, 'missing_parameter', `${param} is required.`, param),
  invalidJson: () => new ApiError(400, 'invalid_json', 'The request body is not valid JSON.'),
  unsupportedMediaType: (got: string, accepted: string[]) =>
    new ApiError(
      415,
      'unsupported_media_type',
      `Content-Type ${got || '(none)'} is not supported; use ${accepted.join(' or ')}.`,
    ),
  invalidApiKey: (message = 'Missing or invalid API key.') => new ApiError(401, 'invalid_api_key', message),
  userBlocked: () => new ApiError(403, 'user_blocked', 'This account is blocked.'),
  notFound: (param: string | null = 'id', what = 'resource') =>
    new ApiError(404, 'not_found', `No such ${what}.`, param),
  adminSurfaceOff: () =>
    new ApiError(
      404,
      'not_found',
      'The admin surface is off: this server was started without SCRIBE_ADMIN_TOKEN. ' +
        'Set it to a token of your choice and send that token in X-Admin-Token.',
      null,
    ),
  methodNotAllowed: (allowed: string[]) =>
    new ApiError(405, 'method_not_allowed', `Method not allowed; use ${allowed.join(', ')}.`, null, {
      Allow: allowed.join(', '),
    }),
  insufficientBalance: (message = 'Insufficient balance.') => new ApiError(402, 'insufficient_balance', message),
  rateLimited: (limit: number, retryAfter: number, headers: Record<string, string>) =>
    new ApiError(429, 'rate_limit_exceeded', `Rate limit of ${limit} requests per second exceeded.`, null, {
      ...headers,
      'Retry-After': String(retryAfter),
    }),
  keyLimitExceeded: (limit: number) =>
    new ApiError(409, 'key_limit_exceeded', `An account can have at most ${limit} live keys; revoke one first.`),
  idempotencyKeyReused: () =>
    new ApiError(409, 'idempotency_key_reused', 'This Idempotency-Key was used with a different request body.'),
  internal: () => new ApiError(500, 'internal_error', 'Internal server error.'),
};
