// Failures of what the server stands on rather than of the request: a database that does not answer within its bound
// (cannot connect, pool exhausted, statement or read timeout, connection cut or terminated) and a full disk (ENOSPC,
// SQLITE_FULL, PostgreSQL's disk_full). They become the contract's 503 `database_unavailable` and
// `insufficient_storage` with Retry-After wherever they surface, so a client is told to come back instead of seeing a
// 500, and the job runner hands such a job back for a later attempt instead of failing the customer's task.
import { ApiError } from './api-error.ts';

export type InfrastructureFault = 'database' | 'storage';

/** Seconds a client is asked to wait: a database usually comes back within seconds, freed space takes an operator. */
export const RETRY_AFTER_SECONDS: Record<InfrastructureFault, number> = { database: 5, storage: 60 };

const STORAGE_CODES = new Set(['ENOSPC', 'EDQUOT', 'SQLITE_FULL', '53100']);

/** Socket and driver codes of a database that cannot be reached or went away. */
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'SQLITE_BUSY',
  'SQLITE_BUSY_SNAPSHOT',
  'SQLITE_BUSY_TIMEOUT',
  'SQLITE_LOCKED',
  // PostgreSQL: query_canceled (statement_timeout), admin_shutdown (pg_terminate_backend, a fast stop),
  // crash_shutdown, cannot_connect_now (starting or stopping), too_many_connections.
  '57014',
  '57P01',
  '57P02',
  '57P03',
  '53300',
]);

const UNREACHABLE_MESSAGES = [
  'Query read timeout',
  'timeout expired',
  'Connection terminated',
  'Connection ended unexpectedly',
  'Client has encountered a connection error and is not queryable',
  'Knex: Timeout acquiring a connection',
];

function* chain(error: unknown): Generator<{ code?: unknown; name?: unknown; message?: unknown }> {
  for (let current = error, depth = 0; current && typeof current === 'object' && depth < 5; depth++) {
    yield current as { code?: unknown; name?: unknown; message?: unknown };
    current = (current as { cause?: unknown }).cause;
  }
}

/** Which dependency failed, or undefined when the error is the request's or a bug. */
export function infrastructureFaultOf(error: unknown): InfrastructureFault | undefined {
  if (error instanceof ApiError) return undefined;
  for (const link of chain(error)) {
    const code = typeof link.code === 'string' ? link.code : '';
    const message = typeof link.message === 'string' ? link.message : '';
    if (STORAGE_CODES.has(code) || /database or disk is full|no space left on device/i.test(message)) return 'storage';
    if (link.name === 'KnexTimeoutError' || UNREACHABLE_CODES.has(code) || code.startsWith('08')) return 'database';
    if (UNREACHABLE_MESSAGES.some((known) => message.includes(known))) return 'database';
    // An error that names a code of its own was classified where it was thrown (an engine's `upstream_unreachable`,
    // a unique violation's 23505): what caused it is that dependency's — an upstream's refused connection is no
    // database's — so the causes behind it are not read.
    if (code) return undefined;
  }
  return undefined;
}

export function databaseUnavailable(): ApiError {
  return new ApiError(
    503,
    'database_unavailable',
    'The database did not answer in time; retry after the Retry-After delay.',
    null,
    { 'Retry-After': String(RETRY_AFTER_SECONDS.database) },
  );
}

export function insufficientStorage(): ApiError {
  return new ApiError(
    503,
    'insufficient_storage',
    "The server's storage is full; nothing was stored or charged. Retry after the Retry-After delay.",
    null,
    { 'Retry-After': String(RETRY_AFTER_SECONDS.storage) },
  );
}

/** The contract's error for an infrastructure failure, or undefined for any other error. */
export function infrastructureApiError(error: unknown): ApiError | undefined {
  const fault = infrastructureFaultOf(error);
  if (fault === 'database') return databaseUnavailable();
  if (fault === 'storage') return insufficientStorage();
  return undefined;
}

/** What a log line says about such a failure: its code and message, without the stack (it is not a bug). */
export function faultSummary(error: unknown): { code: string | undefined; message: string } {
  const first = [...chain(error)][0] ?? {};
  return {
    code: typeof first.code === 'string' ? first.code : undefined,
    message: typeof first.message === 'string' ? first.message : String(error),
  };
}
