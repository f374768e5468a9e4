// ignored_auth: a protected operation sent without credentials, and with credentials that are not valid, answers
// 401 (never a success, never anything else).
import { randomBytes } from 'node:crypto';
import { hmacHeaders } from '../core/client.ts';
import { registerCheck, type ActiveContext } from '../core/registry.ts';
import type { Finding } from '../core/types.ts';

const invalidCredentials = (security: string): Record<string, string> => {
  if (security === 'bearer') return { Authorization: `Bearer sk_live_${randomBytes(16).toString('hex')}` };
  if (security === 'admin') return { 'X-Admin-Token': `wrong-${randomBytes(8).toString('hex')}` };
  return hmacHeaders(`pk_${randomBytes(16).toString('hex')}`, randomBytes(32).toString('hex'));
};

export async function ignored_auth({ operation, send, sample }: ActiveContext) {
  if (operation.security === 'none' || !sample) return;
  const findings: Finding[] = [];
  const probes = [
    { label: 'no credentials', headers: {} },
    { label: 'invalid credentials', headers: invalidCredentials(operation.security) },
  ];
  for (const probe of probes) {
    const exchange = await send(sample, {
      label: `ignored_auth: ${probe.label}`,
      operationId: operation.id,
      security: operation.security,
      auth: { headers: probe.headers },
    });
    const { status } = exchange.response;
    if (status === 401) continue;
    findings.push({
      title: status < 300 ? 'API accepts requests without valid authentication' : 'Unexpected status for missing auth',
      message: `With ${probe.label} the answer was ${status}, expected 401`,
      severity: status < 300 ? 'critical' : 'medium',
      exchange,
    });
  }
  return findings;
}

registerCheck('ignored_auth', 'active', ignored_auth);
