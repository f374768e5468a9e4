// What `npm start` and the `scribe` CLI print when they cannot go on: ONE line that names the setting to fix
// (`scribe: SCRIBE_PRICES is not valid JSON: …`) and exit code 1, never a stack trace for something the user caused or
// can fix (a bad setting, a taken port, a database that does not answer). Anything else prints its message; its stack
// follows only with LOG_LEVEL=debug.
import { ConfigError } from './config.ts';
import { ApiError } from './http/api-error.ts';

/** Connection failures of a database client (Node's socket errors and PostgreSQL's own startup refusals). */
const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ECONNRESET']);
const POSTGRES_REFUSALS: Record<string, string> = {
  '28P01': 'refuses the password',
  '28000': 'refuses the user',
  '3D000': 'has no such database',
  '57P03': 'is starting up or shutting down',
};

export interface FatalContext {
  env?: Record<string, string | undefined>;
}

interface CodedError extends Error {
  code?: string;
  errors?: unknown[];
}

/** The error's own code, or that of the first error an AggregateError (e.g. a connection to ::1 and 127.0.0.1) holds. */
function codeOf(error: CodedError): string | undefined {
  if (error.code) return error.code;
  const inner = error.errors?.[0] ?? (error.cause as CodedError | undefined);
  return inner && typeof inner === 'object' ? codeOf(inner as CodedError) : undefined;
}

/** DATABASE_URL with its password hidden. */
function redacted(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(unparsable)';
  }
}

/** The one line for `error` (without the `scribe: ` prefix). */
export function describeFatal(error: unknown, context: FatalContext = {}): string {
  const env = context.env ?? process.env;
  if (error instanceof ConfigError) return error.message;
  if (error instanceof ApiError) return `${error.code}: ${error.message}`;
  if (!(error instanceof Error)) return `stopped: ${String(error)}`;
  const coded = error as CodedError;
  const code = codeOf(coded);
  const syscall = (coded as { syscall?: string }).syscall;
  if (syscall === 'listen' || code === 'EADDRINUSE') {
    const where = `${env.HOST || '127.0.0.1'}:${env.PORT || '8080'}`;
    if (code === 'EADDRINUSE') return `PORT ${where} is taken by another program (EADDRINUSE): stop it or set PORT`;
    if (code === 'EACCES') return `PORT ${where} may not be used by this user (EACCES): set PORT to 1024 or above`;
    if (code === 'EADDRNOTAVAIL') return `HOST ${env.HOST} is not an address of this machine (EADDRNOTAVAIL)`;
    return `PORT ${where} cannot be listened on (${code ?? error.message})`;
  }
  if (env.DATABASE_URL && code && (UNREACHABLE.has(code) || code in POSTGRES_REFUSALS)) {
    const problem = POSTGRES_REFUSALS[code] ?? `does not answer (${code})`;
    return `DATABASE_URL ${redacted(env.DATABASE_URL)} ${problem}`;
  }
  if (env.DATABASE_URL && /Timeout acquiring a connection/i.test(error.message)) {
    return `DATABASE_URL ${redacted(env.DATABASE_URL)} does not answer (timeout)`;
  }
  if (code?.startsWith('SQLITE_')) {
    return `SCRIBE_DATA_DIR ${env.SCRIBE_DATA_DIR || './data'} cannot hold the SQLite database (${code}: ${error.message})`;
  }
  if (code === 'EACCES' || code === 'EROFS' || code === 'ENOSPC') {
    return `cannot write ${(coded as { path?: string }).path ?? 'a file'} (${code}): check SCRIBE_DATA_DIR`;
  }
  return error.message;
}

/** Prints the one line (and, for a bug, the stack at LOG_LEVEL=debug) and ends the process with exit code 1. */
export function exitWithFatal(error: unknown, context: FatalContext = {}): never {
  const env = context.env ?? process.env;
  console.error(`scribe: ${describeFatal(error, context)}`);
  const known = error instanceof ConfigError || error instanceof ApiError;
  if (!known && (env.LOG_LEVEL === 'debug' || env.LOG_LEVEL === 'trace') && error instanceof Error) {
    console.error(error.stack);
  }
  process.exit(1);
}
