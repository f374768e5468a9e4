// AES-256-GCM for v2 secrets at rest: base64(iv | tag | ciphertext) with the server key from config.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

export function seal(key: Buffer, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64');
}

export function open(key: Buffer, sealed: string): string {
  const data = Buffer.from(sealed, 'base64');
  const decipher = createDecipheriv('aes-256-gcm', key, data.subarray(0, 12));
  decipher.setAuthTag(data.subarray(12, 28));
  return Buffer.concat([decipher.update(data.subarray(28)), decipher.final()]).toString('utf8');
}

/**
 * The server key and the keys it replaced (SCRIBE_SECRET_KEY_PREVIOUS): new values are sealed with `current` only;
 * a value sealed before a rotation still opens with a previous key until `scribe secrets reseal` re-seals it.
 */
export interface SecretKeys {
  readonly current: Buffer;
  readonly previous: readonly Buffer[];
}

/** Keys with nothing to rotate from. */
export const singleKey = (current: Buffer): SecretKeys => ({ current, previous: [] });

/** Opens with the current key, else with each previous one; throws the current key's failure when none opens it. */
export function openWith(keys: SecretKeys, sealed: string): string {
  return openFinding(keys, sealed).plaintext;
}

/** Opens a sealed value and says whether the current key opened it (re-sealing skips those). */
export function openFinding(keys: SecretKeys, sealed: string): { plaintext: string; byCurrent: boolean } {
  try {
    return { plaintext: open(keys.current, sealed), byCurrent: true };
  } catch (failure) {
    for (const key of keys.previous) {
      try {
        return { plaintext: open(key, sealed), byCurrent: false };
      } catch {
        // the next previous key, if any
      }
    }
    throw failure;
  }
}
