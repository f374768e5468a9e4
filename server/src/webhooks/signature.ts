// Standard Webhooks signing: `webhook-signature: v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">`,
// keyed with the base64-decoded part of the endpoint's `whsec_` secret (the contract's WebhookWithSecret).
import { createHmac, randomBytes } from 'node:crypto';

const PREFIX = 'whsec_';

/** A new endpoint secret: `whsec_` and the base64 of 24 random bytes (32 characters, no padding). */
export const newWebhookSecret = (): string => `${PREFIX}${randomBytes(24).toString('base64')}`;

/** The HMAC key of a secret: the bytes its base64 part after `whsec_` encodes. */
export function signingKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64');
}

/** The `webhook-signature` header value of one attempt. */
export function signatureOf(secret: string, id: string, timestamp: number, body: string): string {
  const digest = createHmac('sha256', signingKey(secret)).update(`${id}.${timestamp}.${body}`).digest('base64');
  return `v1,${digest}`;
}

/** The three Standard Webhooks headers of an attempt made at `timestamp` (Unix seconds). */
export function webhookHeaders(secret: string, id: string, timestamp: number, body: string): Record<string, string> {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signatureOf(secret, id, timestamp, body),
  };
}
