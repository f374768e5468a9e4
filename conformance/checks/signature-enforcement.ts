// signature_enforcement: on a signed (v2/v1) operation a correctly signed request is let in, and each broken
// variant is refused 401: a signature header missing, a tampered signature, a timestamp outside the window, a
// signature made with another secret.
import { registerCheck } from '../core/registry.ts';
import type { Exchange, Finding } from '../core/types.ts';

export interface SignatureTrace {
  probes: Array<{ variant: string; valid: boolean; exchange: Exchange }>;
}

export function signature_enforcement(trace: SignatureTrace) {
  const findings: Finding[] = [];
  for (const { variant, valid, exchange } of trace.probes) {
    const { status } = exchange.response;
    if (valid && status === 401)
      findings.push({
        title: 'Valid signature refused',
        message: `A correctly signed request (${variant}) answered 401`,
        severity: 'high',
        exchange,
      });
    if (!valid && status !== 401)
      findings.push({
        title: status < 300 ? 'Bad signature accepted' : 'Bad signature not answered 401',
        message: `${variant}: answered ${status}, expected 401`,
        severity: status < 300 ? 'critical' : 'medium',
        exchange,
      });
  }
  return findings;
}

registerCheck('signature_enforcement', 'trace', signature_enforcement);
