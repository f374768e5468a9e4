// rate_limit_conformance: more requests in one second than the limit get a 429 carrying Retry-After (integer
// seconds ≥ 1) and the version's rate-limit error (v3 `rate_limit_exceeded`, v2 `RATE_LIMITED`); requests within the
// limit in their second are not refused, however many WebSocket frames the account sent in it ("WebSocket frames
// do not" count toward the limit).
import { registerCheck } from '../core/registry.ts';
import type { Exchange, Finding } from '../core/types.ts';

export interface RateLimitTrace {
  limit: number;
  /** Requests of one account sent within one second. */
  burst: Exchange[];
  /** Requests of one account within the limit in their second, sent right after `frames` WebSocket frames. */
  within?: Exchange[];
  frames?: number;
}

export function rate_limit_conformance(trace: RateLimitTrace) {
  const findings: Finding[] = [];
  const refused = (trace.within ?? []).filter((e) => e.response.status === 429);
  if (refused.length > 0)
    findings.push({
      title: 'Requests within the limit refused',
      message: `${refused.length} of ${trace.within!.length} requests (limit ${trace.limit}) answered 429 right after ${trace.frames ?? 'some'} WebSocket frames in the same second`,
      severity: 'high',
      exchange: refused[0],
    });
  const limited = trace.burst.filter((e) => e.response.status === 429);
  if (trace.burst.length > trace.limit && limited.length === 0)
    findings.push({
      title: 'Rate limit not enforced',
      message: `${trace.burst.length} requests in one second (limit ${trace.limit}) got no 429`,
      severity: 'high',
      exchange: trace.burst.at(-1),
    });
  for (const exchange of limited) {
    const retryAfter = exchange.response.headers['retry-after'];
    if (!retryAfter || !/^\d+$/.test(retryAfter.trim()) || Number(retryAfter) < 1)
      findings.push({
        title: '429 without a valid Retry-After',
        message: `Retry-After: ${retryAfter ?? '(missing)'}`,
        severity: 'high',
        exchange,
      });
    const body = exchange.response.body as { error?: unknown } | undefined;
    const code = typeof body?.error === 'string' ? body.error : (body?.error as { code?: unknown } | undefined)?.code;
    if (code !== 'rate_limit_exceeded' && code !== 'RATE_LIMITED')
      findings.push({
        title: '429 without the rate-limit error',
        message: `error code: ${JSON.stringify(code)}`,
        severity: 'medium',
        exchange,
      });
  }
  return findings;
}

registerCheck('rate_limit_conformance', 'trace', rate_limit_conformance);
