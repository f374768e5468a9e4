// status_code_conformance: the status is one the operation declares (or covered by `4XX`/`default`), and the one
// the document fixes when a scenario step knows it (a blocked account is 403, an empty balance 402, ...), with the
// error code it fixes (`unsupported_format`, `NOT_READY`, …): the right status with another code is a different
// answer to the client.
import { declaredResponse } from '../core/declared.ts';
import { registerCheck, type ResponseContext } from '../core/registry.ts';

export function status_code_conformance({ exchange, operation, expectation }: ResponseContext) {
  if (!operation) return;
  const { status } = exchange.response;
  if (expectation.kind === 'status' && !expectation.statuses.includes(status))
    return {
      title: 'Unexpected status code',
      message: `${expectation.reason}: received ${status}, expected ${expectation.statuses.join(' or ')}`,
      severity: 'high' as const,
    };
  if (expectation.kind === 'status' && expectation.code && errorCodeOf(exchange.response.body) !== expectation.code)
    return {
      title: 'Unexpected error code',
      message: `${expectation.reason}: received ${status} ${errorCodeOf(exchange.response.body) ?? 'without an error code'}, expected ${expectation.code}`,
      severity: 'high' as const,
    };
  if (declaredResponse(operation, status)) return;
  return {
    title: 'Undocumented HTTP status code',
    message: `Received: ${status}; documented: ${Object.keys(operation.responses).join(', ')}`,
    severity: 'medium' as const,
  };
}

/** v3 `error.code`, or v2 `error` (a string). */
function errorCodeOf(body: unknown): string | undefined {
  const error = (body as { error?: unknown } | undefined)?.error;
  if (typeof error === 'string') return error;
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
}

registerCheck('status_code_conformance', 'response', status_code_conformance);
