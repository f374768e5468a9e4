// error_code_status_map: a v3 error `code` comes with the HTTP status the interface document and the contract
// decisions give it, both ways — a code answered with another status (`not_found` as 403), and a status whose code
// is fixed answered with another code (a 401 that is not `invalid_api_key`) — and the error a failed task carries
// has the type of its code's status (the document: "the same object appears as `error` inside a failed task"). The
// table is written here, not read from the document under test, so a looser `--spec` cannot weaken it; codes whose
// status nothing fixes (download_failed, task_failed, …) are not judged.
import { registerCheck, type ResponseContext } from '../core/registry.ts';
import { errorEnvelopeOf } from '../core/spec.ts';
import type { Finding } from '../core/types.ts';
import { errorTypeForStatus } from './error-type-status-map.ts';

/** Statuses by code: the document's machine codes and status map, and the contract's decisions for the rest. */
export const STATUSES_BY_CODE: Readonly<Record<string, readonly number[]>> = {
  invalid_api_key: [401],
  // 409 only on a webhook update of a blocked account (the document's 409 invalid_request_error)
  user_blocked: [403, 409],
  insufficient_balance: [402],
  rate_limit_exceeded: [429],
  too_many_concurrent_jobs: [429],
  key_limit_exceeded: [409],
  model_not_found: [404],
  not_found: [404],
  invalid_parameter: [400],
  missing_parameter: [400],
  invalid_json: [400],
  file_too_large: [400],
  duration_exceeded: [400],
  unsupported_format: [400],
  unsupported_language: [400],
  unsupported_media_type: [415],
  method_not_allowed: [405],
  idempotency_key_reused: [409],
  engine_unavailable: [503],
  internal_error: [500],
  // the contract's own extensions: a prompt over the model's context, a change the task's state no longer allows
  context_length_exceeded: [400],
  invalid_state: [409],
};

/** Statuses whose code the document or the contract fixes. */
export const CODES_BY_STATUS: Readonly<Record<number, readonly string[]>> = {
  401: ['invalid_api_key'],
  402: ['insufficient_balance'],
  403: ['user_blocked'],
  404: ['not_found', 'model_not_found'],
  405: ['method_not_allowed'],
  415: ['unsupported_media_type'],
  429: ['rate_limit_exceeded', 'too_many_concurrent_jobs'],
};

interface ErrorLike {
  type?: unknown;
  code?: unknown;
}

/** The failed tasks of a status or list answer (`data` as one task or a list of them). */
function failedTaskErrors(body: unknown): ErrorLike[] {
  const data = (body as { data?: unknown } | undefined)?.data;
  const tasks = Array.isArray(data) ? data : [data];
  return tasks
    .filter((t): t is { status: string; error: ErrorLike } => {
      const task = t as { status?: unknown; error?: unknown } | null | undefined;
      return task?.status === 'failed' && typeof task.error === 'object' && task.error !== null;
    })
    .map((t) => t.error);
}

export function error_code_status_map({ exchange }: ResponseContext) {
  const { status, body } = exchange.response;
  const path = new URL(exchange.request.url).pathname;
  if (path === '/health' || errorEnvelopeOf(path) !== 'ErrorResponse') return;
  const findings: Finding[] = [];
  if (status < 300) {
    for (const error of failedTaskErrors(body)) {
      const statuses = typeof error.code === 'string' ? STATUSES_BY_CODE[error.code] : undefined;
      if (!statuses || typeof error.type !== 'string') continue;
      const types = statuses.map(errorTypeForStatus);
      if (!types.includes(error.type))
        findings.push({
          title: "A failed task's error type does not match its code",
          message: `${error.code} with type ${error.type}; its status ${statuses.join(' or ')} gives ${types.join(' or ')}`,
          severity: 'medium',
        });
    }
    return findings;
  }
  if (status < 400) return;
  const code = (body as { error?: ErrorLike } | undefined)?.error?.code;
  if (typeof code !== 'string') return;
  const statuses = STATUSES_BY_CODE[code];
  if (statuses && !statuses.includes(status))
    findings.push({
      title: 'Error code does not match the status',
      message: `${code} came with ${status}; the document gives ${statuses.join(' or ')}`,
      severity: 'medium',
    });
  const codes = CODES_BY_STATUS[status];
  if (codes && !codes.includes(code))
    findings.push({
      title: 'Status does not match the error code',
      message: `${status} came with code ${code}; the document gives ${codes.join(' or ')}`,
      severity: 'medium',
    });
  return findings;
}

registerCheck('error_code_status_map', 'response', error_code_status_map);
