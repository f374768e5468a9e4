// response_headers_conformance: every header the response declares as required is present, and every declared
// header that is present matches its schema (X-Request-Id, RateLimit-*, Retry-After, Allow, ...).
import { declaredResponse, headerValue } from '../core/declared.ts';
import { registerCheck, type ResponseContext } from '../core/registry.ts';
import { describeErrors } from '../core/spec.ts';
import type { Finding } from '../core/types.ts';

export function response_headers_conformance({ spec, exchange, operation }: ResponseContext) {
  const declared = declaredResponse(operation, exchange.response.status);
  if (!declared || !operation) return;
  const findings: Finding[] = [];
  for (const [name, header] of Object.entries(declared.headers ?? {})) {
    const value = exchange.response.headers[name.toLowerCase()];
    if (value === undefined) {
      if (header.required)
        findings.push({ title: 'Missing required header', message: `Header: ${name}`, severity: 'medium' });
      continue;
    }
    if (!header.schema) continue;
    const validate = spec.validator(`header:${operation.id}:${exchange.response.status}:${name}`, header.schema);
    if (!validate(headerValue(value, header.schema)))
      findings.push({
        title: 'Response header does not conform to the schema',
        message: `${name}: ${value} — ${describeErrors(validate.errors)}`,
        severity: 'medium',
      });
  }
  return findings;
}

registerCheck('response_headers_conformance', 'response', response_headers_conformance);
