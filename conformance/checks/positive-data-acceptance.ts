// positive_data_acceptance: a request the schema accepts must not be refused as malformed. Refusals for the state
// of things (401, 402, 403, 404 unknown id, 409, 429, 503) are fine; a 400 validation error, a 415 or a 405 is not.
// The v3 codes that mean "your request is malformed" are the document's validation codes; a v2 400 is always one.
import { registerCheck, type ResponseContext } from '../core/registry.ts';

const MALFORMED_V3 = new Set(['invalid_parameter', 'missing_parameter', 'invalid_json', 'unsupported_media_type']);

export function positive_data_acceptance({ exchange, expectation }: ResponseContext) {
  if (expectation.kind !== 'positive') return;
  const { status, body } = exchange.response;
  if (status !== 400 && status !== 415 && status !== 405) return;
  const code = (body as { error?: { code?: unknown } } | undefined)?.error;
  const v3Code = typeof code === 'object' && code ? (code as { code?: unknown }).code : undefined;
  if (status === 400 && typeof v3Code === 'string' && !MALFORMED_V3.has(v3Code)) return;
  return {
    title: 'API rejected schema-compliant request',
    message: `Valid data was answered ${status}${typeof v3Code === 'string' ? ` (${v3Code})` : ''}`,
    severity: 'high' as const,
  };
}

registerCheck('positive_data_acceptance', 'response', positive_data_acceptance);
