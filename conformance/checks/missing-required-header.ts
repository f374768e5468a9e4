// missing_required_header: dropping a header the request requires (a required header parameter, or the
// Content-Type of a required body) is refused with a 4xx (400 or 415), never accepted.
import { hasHeader } from '../core/client.ts';
import { registerCheck, type ActiveContext } from '../core/registry.ts';
import type { Finding, HttpRequest } from '../core/types.ts';

export async function missing_required_header({ operation, send, sample }: ActiveContext) {
  if (!sample) return;
  const drops: Array<{ name: string; request: HttpRequest }> = [];
  for (const parameter of operation.parameters) {
    if (parameter.in !== 'header' || !parameter.required) continue;
    const headers = Object.fromEntries(
      Object.entries(sample.headers).filter(([name]) => name.toLowerCase() !== parameter.name.toLowerCase()),
    );
    drops.push({ name: parameter.name, request: { ...sample, headers } });
  }
  if (operation.requestBody?.required && sample.body && sample.body.kind !== 'multipart') {
    // a raw body with no Content-Type at all
    const text = sample.body.kind === 'json' ? JSON.stringify(sample.body.value) : sample.body.text;
    const headers = Object.fromEntries(
      Object.entries(sample.headers).filter(([n]) => !hasHeader({ [n]: '' }, 'content-type')),
    );
    drops.push({ name: 'Content-Type', request: { ...sample, headers, body: { kind: 'raw', text } } });
  }
  const findings: Finding[] = [];
  for (const drop of drops) {
    const exchange = await send(drop.request, {
      label: `missing_required_header: ${drop.name}`,
      operationId: operation.id,
      security: operation.security,
    });
    const { status } = exchange.response;
    if (status >= 400 && status < 500) continue;
    findings.push({
      title: 'Missing header not rejected',
      message: `Without ${drop.name} the answer was ${status}, expected a 4xx`,
      severity: 'medium',
      exchange,
    });
  }
  return findings;
}

registerCheck('missing_required_header', 'active', missing_required_header);
