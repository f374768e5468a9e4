// unsupported_method: a method the path does not declare answers 405 with an Allow header naming the declared ones
// (for a concrete URL, the methods of every path template it matches: GET /v2/transcriptions/calculate is
// getV2Transcription with id `calculate`).
import { registerCheck, type ActiveContext } from '../core/registry.ts';

const CANDIDATES = ['PUT', 'PATCH', 'DELETE', 'POST', 'GET'];

export async function unsupported_method({ spec, operation, send, sample }: ActiveContext) {
  if (!sample) return;
  const pathname = sample.path.split('?')[0]!;
  const declared = ['GET', 'PUT', 'POST', 'DELETE', 'PATCH'].filter((m) => spec.match(m, pathname));
  const method = CANDIDATES.find((m) => !declared.includes(m));
  if (!method) return;
  const exchange = await send(
    { method, path: pathname, headers: {} },
    { label: `unsupported_method: ${method}`, operationId: operation.id, security: operation.security },
  );
  const { status, headers } = exchange.response;
  if (status !== 405)
    return {
      title: 'Unsupported method not rejected with 405',
      message: `${method} ${operation.path} was answered ${status}`,
      severity: 'medium' as const,
      exchange,
    };
  const allow = (headers.allow ?? '')
    .split(',')
    .map((m) => m.trim().toUpperCase())
    .filter(Boolean);
  const missing = declared.filter((m) => !allow.includes(m));
  const extra = allow.filter((m) => !declared.includes(m) && m !== 'HEAD' && m !== 'OPTIONS');
  if (missing.length > 0 || extra.length > 0)
    return {
      title: 'Allow header does not list the declared methods',
      message: `Allow: ${headers.allow ?? '(missing)'}; declared: ${declared.join(', ')}`,
      severity: 'low' as const,
      exchange,
    };
}

registerCheck('unsupported_method', 'active', unsupported_method);
