// webhook_signature_conformance: each delivery the suite's receiver got follows Standard Webhooks — `webhook-id`,
// `webhook-timestamp` (within 5 minutes of arrival) and `webhook-signature: v1,<base64 HMAC-SHA256 of
// id.timestamp.body>` keyed with the base64 part of the endpoint's `whsec_` secret — and its JSON body is the
// documented payload of its event type, with `id` equal to `webhook-id`.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { registerCheck } from '../core/registry.ts';
import { describeErrors, type Spec } from '../core/spec.ts';
import type { Finding } from '../core/types.ts';

export interface ReceivedWebhook {
  headers: Record<string, string>;
  body: string;
  receivedAt: number;
}

export interface WebhookTrace {
  secret: string;
  deliveries: ReceivedWebhook[];
  /** Events that were due but never arrived. */
  missing?: string[];
}

export function expectedSignature(secret: string, id: string, timestamp: string, body: string): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  return createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64');
}

function signatureMatches(header: string, expected: string): boolean {
  const wanted = Buffer.from(expected);
  return header.split(' ').some((entry) => {
    const [version, value] = entry.split(',', 2);
    if (version !== 'v1' || !value) return false;
    const given = Buffer.from(value);
    return given.length === wanted.length && timingSafeEqual(given, wanted);
  });
}

export function webhook_signature_conformance(trace: WebhookTrace, spec: Spec) {
  const findings: Finding[] = [];
  for (const event of trace.missing ?? [])
    findings.push({
      title: 'Webhook not delivered',
      message: `${event} did not arrive within 20 s`,
      severity: 'high',
      operation: 'webhook delivery',
    });
  for (const delivery of trace.deliveries) {
    const evidence = `${JSON.stringify(delivery.headers)}\n${delivery.body.slice(0, 400)}`;
    const fail = (title: string, message: string) =>
      findings.push({ title, message, severity: 'high', operation: 'webhook delivery', evidence });
    const id = delivery.headers['webhook-id'];
    const timestamp = delivery.headers['webhook-timestamp'];
    const signature = delivery.headers['webhook-signature'];
    if (!id || !timestamp || !signature) {
      fail('Missing webhook signature headers', 'webhook-id, webhook-timestamp and webhook-signature are required');
      continue;
    }
    if (!/^\d+$/.test(timestamp) || Math.abs(Number(timestamp) * 1000 - delivery.receivedAt) > 300_000)
      fail('Webhook timestamp outside the window', `webhook-timestamp ${timestamp}`);
    if (!signatureMatches(signature, expectedSignature(trace.secret, id, timestamp, delivery.body)))
      fail('Webhook signature does not verify', `webhook-signature ${signature.slice(0, 60)}`);
    let payload: { id?: unknown; type?: unknown } | undefined;
    try {
      payload = JSON.parse(delivery.body) as typeof payload;
    } catch {
      fail('Webhook body is not JSON', delivery.body.slice(0, 80));
      continue;
    }
    const schema = typeof payload?.type === 'string' ? spec.webhooks[payload.type] : undefined;
    if (!schema) {
      fail('Undocumented webhook event type', `type ${JSON.stringify(payload?.type)}`);
      continue;
    }
    const validate = spec.validator(`webhook:${String(payload!.type)}`, schema);
    if (!validate(payload)) fail('Webhook payload violates schema', describeErrors(validate.errors));
    if (payload!.id !== id) fail('Event id differs from webhook-id', `id ${JSON.stringify(payload!.id)} ≠ ${id}`);
  }
  return findings;
}

registerCheck('webhook_signature_conformance', 'trace', webhook_signature_conformance);
