// error_body_conformance: every 4xx/5xx body is the version's error shape (v3/admin `{error: {type, code, message,
// param}}`, v2/v1 `{error, message, errors}`), carries no stack trace, a v3 code comes with the status the
// document gives it, and a 400 for a request with one known bad field names that field (v3 `param`, v2 a key of
// `errors`).
import { registerCheck, type ResponseContext } from '../core/registry.ts';
import { describeErrors, errorEnvelopeOf } from '../core/spec.ts';
import type { Finding } from '../core/types.ts';

const STACK_TRACE = /\n\s+at\s|\bat\s+\S+\s+\(|\.(?:ts|js|mjs|cjs):\d+|node:internal|node_modules/;

/**
 * The HTTP statuses the document allows for each v3 error code, read from the ErrorCode description ("HTTP
 * status by code: `invalid_api_key` 401; `user_blocked` 403 (409 on a webhook update); …").
 */
export function statusesByCode(description: string): Map<string, number[]> {
  const map = new Map<string, number[]>();
  const text = description.split(/HTTP status by code:/)[1] ?? '';
  for (const segment of text.split(';')) {
    const firstNumber = segment.search(/\b[1-5]\d\d\b/);
    if (firstNumber < 0) continue;
    const codes = [...segment.slice(0, firstNumber).matchAll(/`([a-z_]+)`/g)].map((m) => m[1]!);
    const statuses = [...segment.matchAll(/\b([1-5]\d\d)\b/g)].map((m) => Number(m[1]));
    for (const code of codes) map.set(code, statuses);
  }
  return map;
}

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
  if (envelope === 'ErrorResponse') {
    const code = (body as { error: { code: string } }).error.code;
    const allowed = statusesByCode(String(spec.schemas.ErrorCode?.description ?? '')).get(code);
    if (allowed && !allowed.includes(status))
      findings.push({
        title: 'Error code does not match the status',
        message: `${code} came with ${status}; the document gives ${allowed.join(' or ')}`,
        severity: 'medium',
      });
  }
  if (status === 400 && expectation.kind === 'negative' && expectation.field) {
    const field = expectation.field;
    if (envelope === 'ErrorResponse') {
      const param = (body as { error: { param: string | null } }).error.param;
      if (param === null || !namesField(param, field))
        findings.push({
          title: 'Error does not name the invalid field',
          message: `Invalid field: ${field}; param: ${JSON.stringify(param)}`,
          severity: 'medium',
        });
    } else {
      const keys = Object.keys((body as { errors: Record<string, unknown> }).errors);
      if (!keys.some((key) => namesField(key, field)))
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
