// status_code_conformance: the status is one the operation declares (or covered by `4XX`/`default`), and the one
// the document fixes when a scenario step knows it (a blocked account is 403, an empty balance 402, ...).
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
  if (declaredResponse(operation, status)) return;
  return {
    title: 'Undocumented HTTP status code',
    message: `Received: ${status}; documented: ${Object.keys(operation.responses).join(', ')}`,
    severity: 'medium' as const,
  };
}

registerCheck('status_code_conformance', 'response', status_code_conformance);
