// use_after_free: once something is deleted (a webhook) or revoked (a key), every operation on it answers 404 —
// and a revoked key authenticates nothing (401).
import { registerCheck } from '../core/registry.ts';
import type { Exchange, Finding } from '../core/types.ts';

export interface UseAfterFreeTrace {
  resource: string;
  /** Requests made after the deletion, each with the status it must get. */
  probes: Array<{ exchange: Exchange; expected: number }>;
}

export function use_after_free(trace: UseAfterFreeTrace) {
  const findings: Finding[] = [];
  for (const { exchange, expected } of trace.probes) {
    const { status } = exchange.response;
    if (status === expected) continue;
    findings.push({
      title: status < 300 ? 'Use after free' : 'Unexpected status after deletion',
      message: `${trace.resource} was used after its deletion: ${exchange.request.method} answered ${status}, expected ${expected}`,
      severity: status < 300 ? 'critical' : 'medium',
      exchange,
    });
  }
  return findings;
}

registerCheck('use_after_free', 'trace', use_after_free);
