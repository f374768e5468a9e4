// Verifying a webhook delivery the way the server signs it (Standard Webhooks): `webhook-signature` holds one or more
// space-separated `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">`, keyed with the bytes of the
// base64 part of the endpoint's `whsec_` secret; the timestamp must be within the tolerance of the local clock.
import type { TranscriptionCompletedEvent, TranscriptionFailedEvent } from '../../generated/client/types.gen.ts';
import { base64ToBytes, bytesOf, hmacKey, type BytesInput } from './bytes.ts';

export type WebhookEvent = TranscriptionCompletedEvent | TranscriptionFailedEvent;

/** Fetch `Headers`, or a plain object such as Node's `IncomingHttpHeaders` (names in any case). */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export interface VerifyWebhookOptions {
  /** Largest accepted distance between `webhook-timestamp` and now, in seconds (default 300). */
  toleranceSeconds?: number;
  /** The current time in milliseconds (default `Date.now`). */
  now?: () => number;
}

export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
}

const SECRET_PREFIX = 'whsec_';

function headerOf(headers: WebhookHeaders, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const entry = Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];
  return Array.isArray(entry) ? entry[0] : entry;
}

/**
 * Checks a delivery's signature and timestamp against the endpoint secret and returns its event. `body` must be the
 * raw request body exactly as received (parsing and re-serialising JSON changes the bytes that were signed).
 * Throws WebhookVerificationError when a header is missing, the timestamp is outside the tolerance or no signature
 * matches.
 */
export async function verifyWebhook(
  secret: string,
  headers: WebhookHeaders,
  body: BytesInput,
  options: VerifyWebhookOptions = {},
): Promise<WebhookEvent> {
  const id = headerOf(headers, 'webhook-id');
  const timestamp = headerOf(headers, 'webhook-timestamp');
  const signatures = headerOf(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures)
    throw new WebhookVerificationError('missing webhook-id, -timestamp or -signature');
  const seconds = Number(timestamp);
  if (!/^\d+$/.test(timestamp)) throw new WebhookVerificationError('webhook-timestamp is not Unix seconds');
  const now = (options.now ?? Date.now)() / 1000;
  if (Math.abs(now - seconds) > (options.toleranceSeconds ?? 300))
    throw new WebhookVerificationError('webhook-timestamp is outside the tolerance');

  const raw = bytesOf(body);
  const signed = new Uint8Array([...bytesOf(`${id}.${timestamp}.`), ...raw]);
  let key: CryptoKey;
  try {
    key = await hmacKey(
      base64ToBytes(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret),
      'verify',
    );
  } catch {
    throw new WebhookVerificationError('the secret is not a whsec_ base64 secret');
  }
  for (const entry of signatures.split(' ')) {
    const [version, signature] = entry.split(',');
    if (version !== 'v1' || !signature) continue;
    let expected: Uint8Array<ArrayBuffer>;
    try {
      expected = base64ToBytes(signature);
    } catch {
      continue;
    }
    // subtle.verify compares in constant time.
    if (await crypto.subtle.verify('HMAC', key, expected, signed)) {
      try {
        return JSON.parse(new TextDecoder().decode(raw)) as WebhookEvent;
      } catch {
        throw new WebhookVerificationError('the signed body is not JSON');
      }
    }
  }
  throw new WebhookVerificationError('no webhook-signature matches the body');
}
