// Signed, expiring links to the result files of a v2 transcription (`results.text|json|pdf`). The link is its own
// credential, so a browser can open it without headers: `signature` is the hex HMAC-SHA256 of
// `id \n format \n expires` (the contract), keyed with a key derived from the server secret for this one purpose —
// a leaked link key can never decrypt the v2 secrets that the server secret protects. Links are signed with the
// current server key; after a rotation, links signed with a previous key (SCRIBE_SECRET_KEY_PREVIOUS) still open
// until they expire or that key is dropped.
import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import type { V2Results } from '../../../../generated/client/types.gen.ts';
import type { SecretKeys } from '../../secrets/secret-box.ts';

export type ResultFormat = keyof V2Results;
export const RESULT_FORMATS: ResultFormat[] = ['text', 'json', 'pdf'];

export type LinkCheck = 'valid' | 'expired' | 'invalid';

const linkKeyOf = (secretKey: Buffer) =>
  Buffer.from(hkdfSync('sha256', secretKey, Buffer.alloc(0), 'scribe v2 result links', 32));

export function createResultLinks(secretKeys: SecretKeys, ttlSeconds: number) {
  const [key, ...previous] = [secretKeys.current, ...secretKeys.previous].map(linkKeyOf);
  const signWith = (linkKey: Buffer, id: string, format: string, expires: number) =>
    createHmac('sha256', linkKey).update(`${id}\n${format}\n${expires}`).digest('hex');
  const sign = (id: string, format: string, expires: number) => signWith(key!, id, format, expires);

  return {
    /** Fresh links for every format, valid for the configured time from `nowSeconds`. */
    issue(origin: string, id: string, nowSeconds = Math.floor(Date.now() / 1000)): V2Results {
      const expires = nowSeconds + ttlSeconds;
      const link = (format: ResultFormat) =>
        `${origin}/v2/results/${encodeURIComponent(id)}/${format}?expires=${expires}&signature=${sign(id, format, expires)}`;
      return { text: link('text'), json: link('json'), pdf: link('pdf') };
    },

    /** An expired link is reported as such only when its signature verifies (no oracle for forged links). */
    check(id: string, format: string, expires: number, signature: string, nowSeconds = Date.now() / 1000): LinkCheck {
      const given = Buffer.from(signature, 'hex');
      const signedBy = (linkKey: Buffer) => {
        const expected = Buffer.from(signWith(linkKey, id, format, expires), 'hex');
        return given.length === expected.length && timingSafeEqual(given, expected);
      };
      if (![key!, ...previous].some(signedBy)) return 'invalid';
      return expires < nowSeconds ? 'expired' : 'valid';
    },
  };
}

export type ResultLinks = ReturnType<typeof createResultLinks>;
