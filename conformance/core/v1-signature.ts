// The interface document's v1 signature (`public_key\ntimestamp`, lowercase hex HMAC-SHA256 keyed with the secret),
// synchronous, for the conformance suite: scribe-conformance installs alone, without scribe-client, and signs every
// v2/v1 case with it. Everything else signs requests with scribe-client's signV2Request (version 1 and 2, multipart
// bodies as sent); tests that forge a signature over a canonical string of their own use `sign`.
import { createHmac } from 'node:crypto';

export function canonicalString(publicKey: string, timestamp: string): string {
  return `${publicKey}\n${timestamp}`;
}

export function sign(secret: string, canonical: string): string {
  return createHmac('sha256', secret).update(canonical).digest('hex');
}
