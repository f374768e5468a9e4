// The nonces of v2 signed requests (`X-Signature-Nonce`), kept in the database for the signature window so that a
// request carrying one is accepted once: by every server process sharing the database, and across restarts. A key
// pair's expired nonces are removed when it uses a new one, so the table holds at most one window's worth per pair.
import type { Database } from '../db/database.ts';

export interface SignatureNonces {
  /** Records the nonce; false when this key pair has already used it within the window. */
  use(publicKey: string, nonce: string, nowMs: number, windowMs: number): Promise<boolean>;
}

export function createSignatureNonces(db: Database): SignatureNonces {
  return {
    async use(publicKey, nonce, nowMs, windowMs) {
      await db('signature_nonces').where({ public_key: publicKey }).andWhere('expires_at', '<', nowMs).delete();
      // A timestamp may be up to one window old or ahead: the nonce is kept until no timestamp it could carry is
      // still accepted.
      const inserted = await db('signature_nonces')
        .insert({ public_key: publicKey, nonce, expires_at: nowMs + 2 * windowMs })
        .onConflict(['public_key', 'nonce'])
        .ignore()
        .returning('nonce');
      return inserted.length === 1;
    },
  };
}
