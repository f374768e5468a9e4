// cross_account_isolation: another account's id is answered 404 — never its data, never 403 (no existence oracle).
import { registerCheck } from '../core/registry.ts';
import type { Exchange, Finding } from '../core/types.ts';

export interface IsolationTrace {
  /** Requests by account B naming account A's resources. */
  probes: Exchange[];
}

export function cross_account_isolation(trace: IsolationTrace) {
  const findings: Finding[] = [];
  for (const exchange of trace.probes) {
    const { status } = exchange.response;
    if (status === 404) continue;
    findings.push({
      title: status < 300 ? "Another account's resource is accessible" : "Another account's id is not answered 404",
      message: `${exchange.operationId ?? exchange.request.method} with a foreign id answered ${status}, expected 404`,
      severity: status < 300 ? 'critical' : 'medium',
      exchange,
    });
  }
  return findings;
}

registerCheck('cross_account_isolation', 'trace', cross_account_isolation);
