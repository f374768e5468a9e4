// ensure_resource_availability: what a create returned can be found right away through the create's read links —
// never 404 or 410 (a 409 for a result that is not ready yet is the resource's state, not its absence).
import { registerCheck } from '../core/registry.ts';
import type { Exchange, Finding } from '../core/types.ts';

export interface AvailabilityTrace {
  created: Exchange;
  /** The link targets that read the new resource. */
  probes: Exchange[];
}

export function ensure_resource_availability(trace: AvailabilityTrace) {
  const findings: Finding[] = [];
  for (const exchange of trace.probes) {
    const { status } = exchange.response;
    if (status !== 404 && status !== 410) continue;
    findings.push({
      title: 'Resource is not available after creation',
      message: `${exchange.operationId ?? exchange.request.method} after ${trace.created.operationId} (${trace.created.response.status}) answered ${status}`,
      severity: 'high',
      exchange,
    });
  }
  return findings;
}

registerCheck('ensure_resource_availability', 'trace', ensure_resource_availability);
