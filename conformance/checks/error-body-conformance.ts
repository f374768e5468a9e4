// error_body_conformance: every 4xx/5xx body is the version's error shape (v3/admin `{error: {type, code, message,
// param}}`, v2/v1 `{error, message, errors}`), carries no stack trace, and a 400 for a request with one known bad
// field names that field (v3 `param`, v2 a key of `errors`). Which type and code go with which status is judged by
// error_type_status_map and error_code_status_map.
import { registerCheck, type ResponseContext } from '../core/registry.ts';
import { describeErrors, errorEnvelopeOf } from '../core/spec.ts';
import type { Finding } from '../core/types.ts';

const STACK_TRACE = /\n\s+at\s|\bat\s+\S+\s+\(|\.(?:ts|js|mjs|cjs):\d+|node:internal|node_modules/;

/** Whether an error's field path (`output.format`, `messages[0].role`, `messages.0.role`) is within `field`. */
export const namesField = (reported: string, field: string) =>
  reported === field || reported.startsWith(`${field}.`) || reported.startsWith(`${field}[`);

export function error_body_conformance({ spec, exchange, expectation }: ResponseContext) {
  const { status, text, body } = exchange.response;
  const path = new URL(exchange.request.url).pathname;
  if (status < 400 || path === '/health') return;
  const findings: Finding[] = [];
  if (STACK_TRACE.test(text))
    findings.push({ title: 'Stack trace in the error body', message: text.slice(0, 200), severity: 'high' });
  const envelope = errorEnvelopeOf(path);
  const schema = spec.schemas[envelope];
  if (schema) {
    const validate = spec.validator(`component:${envelope}`, schema);
    if (!validate(body)) {
      findings.push({
        title: 'Error body is not the error shape',
        message: `Not a ${envelope}: ${body === undefined ? 'not JSON' : describeErrors(validate.errors)}`,
        severity: 'high',
      });
      return findings;
    }
  }
  if (status === 400 && expectation.kind === 'negative' && expectation.field) {
    // a header's name is case-insensitive (RFC 9110): `idempotency-key` names `Idempotency-Key`
    const header = expectation.location === 'header';
    const field = header ? expectation.field.toLowerCase() : expectation.field;
    const names = (reported: string) => namesField(header ? reported.toLowerCase() : reported, field);
    if (envelope === 'ErrorResponse') {
      const param = (body as { error: { param: string | null } }).error.param;
      if (param === null || !names(param))
        findings.push({
          title: 'Error does not name the invalid field',
          message: `Invalid field: ${field}; param: ${JSON.stringify(param)}`,
          severity: 'medium',
        });
    } else {
      const keys = Object.keys((body as { errors: Record<string, unknown> }).errors);
      if (!keys.some(names))
        findings.push({
          title: 'Error does not name the invalid field',
          message: `Invalid field: ${field}; errors: ${JSON.stringify(keys)}`,
          severity: 'medium',
        });
    }
  }
  return findings;
}

registerCheck('error_body_conformance', 'response', error_body_conformance);
