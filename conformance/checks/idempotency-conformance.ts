// idempotency_conformance: a create sent again with the same `Idempotency-Key` and the same body replays the stored
// answer (same status, same resource id: nothing created twice); the same key with another body is refused with 409
// `idempotency_key_reused`.
import { registerCheck } from '../core/registry.ts';
import type { Exchange, Finding } from '../core/types.ts';

export interface IdempotencyTrace {
  /** The first create with the key, its repetition with the same body, and one with another body. */
  first: Exchange;
  replay: Exchange;
  reused: Exchange;
  /** Where the created resource's id is in the answer (`id`). */
  idField: string;
}

const idOf = (exchange: Exchange, field: string) =>
  (exchange.response.body as Record<string, unknown> | undefined)?.[field];

const codeOf = (exchange: Exchange) => {
  const error = (exchange.response.body as { error?: unknown } | undefined)?.error;
  return typeof error === 'string' ? error : (error as { code?: unknown } | undefined)?.code;
};

export function idempotency_conformance(trace: IdempotencyTrace) {
  const findings: Finding[] = [];
  const { first, replay, reused, idField } = trace;
  if (first.response.status >= 300) return findings; // nothing was created to replay: other checks judge the refusal
  if (replay.response.status !== first.response.status || idOf(replay, idField) !== idOf(first, idField))
    findings.push({
      title: 'Idempotency-Key not replayed',
      message: `the same key and body answered ${replay.response.status} ${idField}=${JSON.stringify(idOf(replay, idField))} after ${first.response.status} ${idField}=${JSON.stringify(idOf(first, idField))}: a retry must replay the stored answer, not create again`,
      severity: 'high',
      exchange: replay,
    });
  if (reused.response.status !== 409 || codeOf(reused) !== 'idempotency_key_reused')
    findings.push({
      title: 'Idempotency-Key reused with another body',
      message: `the same key with another body answered ${reused.response.status} ${JSON.stringify(codeOf(reused) ?? null)}, expected 409 idempotency_key_reused`,
      severity: reused.response.status < 300 ? 'high' : 'medium',
      exchange: reused,
    });
  return findings;
}

registerCheck('idempotency_conformance', 'trace', idempotency_conformance);
