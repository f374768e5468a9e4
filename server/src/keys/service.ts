// Issuing and checking credentials: v3 Bearer keys (only a SHA-256 hash is stored, looked up by prefix, compared in
// constant time) and v2 key pairs (secret encrypted at rest, HMAC-SHA256 signatures checked in constant time).
import { createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { ApiKeyWithSecret, KeyPair } from '../../../generated/client/types.gen.ts';
import type { AccountRow } from '../accounts/store.ts';
import type { Database } from '../db/database.ts';
import { withAccountLimit } from '../db/account-limit.ts';
import { now, toIso } from '../db/rows.ts';
import { errors } from '../http/api-error.ts';
import { hashApiKeySecret } from '../secrets/api-key-hash.ts';
import { openWith, seal, type SecretKeys } from '../secrets/secret-box.ts';
import type { CredentialCache } from './credential-cache.ts';
import { toApiKey, type ApiKeyRow, type KeyStore } from './store.ts';

const base62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const PREFIX_LENGTH = 16;
const LAST_USED_RESOLUTION_MS = 60_000;

function randomBase62(length: number): string {
  const bytes = randomBytes(length * 2);
  let out = '';
  for (const byte of bytes) {
    if (byte < 248) out += base62[byte % 62];
    if (out.length === length) break;
  }
  return out.length === length ? out : randomBase62(length);
}

function equalHex(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && left.length > 0 && timingSafeEqual(left, right);
}

export interface KeyServiceOptions {
  secretKeys: SecretKeys;
  maxLiveKeys: number;
  credentials: CredentialCache;
}

export function createKeyService(db: Database, store: KeyStore, options: KeyServiceOptions) {
  return {
    /** Issues a v3 key; the live-key limit is counted under the same lock as the insert (every node). */
    async issueApiKey(accountId: string, name: string | null = null): Promise<ApiKeyWithSecret> {
      const secret = `sk_live_${randomBase62(32)}`;
      const row: ApiKeyRow = {
        id: randomUUID(),
        account_id: accountId,
        name,
        prefix: secret.slice(0, PREFIX_LENGTH),
        secret_hash: hashApiKeySecret(secret),
        created_at: now(),
        last_used_at: null,
        revoked_at: null,
      };
      await withAccountLimit(db, 'live_api_keys', accountId, async (trx) => {
        if ((await store.countLiveApiKeys(accountId, trx)) >= options.maxLiveKeys) {
          throw errors.keyLimitExceeded(options.maxLiveKeys);
        }
        await store.insertApiKey(row, trx);
      });
      return { ...toApiKey(row), secret };
    },

    /**
     * The key and account of a Bearer secret, or undefined when the key is unknown or revoked. `secretHash` is
     * `hashApiKeySecret(secret)` when the caller already has it.
     */
    async authenticateApiKey(
      secret: string,
      secretHash?: string,
    ): Promise<{ key: ApiKeyRow; account: AccountRow } | undefined> {
      if (!secret.startsWith('sk_live_') || secret.length < PREFIX_LENGTH + 8) return undefined;
      secretHash ??= hashApiKeySecret(secret);
      const remembered = options.credentials.get(secretHash);
      if (remembered) return remembered;
      const found = await store.findApiKeyWithAccount(secret.slice(0, PREFIX_LENGTH));
      if (!found || found.key.revoked_at || !equalHex(found.key.secret_hash, secretHash)) return undefined;
      // The contract: last_used_at is updated at most once a minute (the cache lives far shorter than that).
      const lastUsed = found.key.last_used_at === null ? 0 : Date.parse(toIso(found.key.last_used_at));
      if (Date.now() - lastUsed >= LAST_USED_RESOLUTION_MS) await store.touchApiKey(found.key.id);
      options.credentials.set(secretHash, found);
      return found;
    },

    /** Revokes one of the account's keys; false when the account has no such key. */
    async revokeApiKey(accountId: string, id: string): Promise<boolean> {
      if (!(await store.findApiKey(accountId, id))) return false;
      await store.revokeApiKey(accountId, id);
      options.credentials.clear();
      return true;
    },

    /** Called when an account changes (blocked, unblocked, limits) so no remembered copy outlives the change. */
    forgetCredentials(): void {
      options.credentials.clear();
    },

    async issueKeyPair(accountId: string): Promise<KeyPair> {
      const publicKey = `pk_${randomBase62(32)}`;
      const secret = randomBytes(32).toString('hex');
      const id = randomUUID();
      const createdAt = now();
      await store.insertKeyPair({
        id,
        account_id: accountId,
        public_key: publicKey,
        secret_encrypted: seal(options.secretKeys.current, secret),
        created_at: createdAt,
        revoked_at: null,
      });
      return { id, public_key: publicKey, secret, created_at: toIso(createdAt) };
    },

    /** The account id of a correctly signed request, or undefined. The canonical string is built by the caller. */
    async knowsPublicKey(publicKey: string): Promise<boolean> {
      return (await store.findKeyPair(publicKey)) !== undefined;
    },
    async verifySignature(publicKey: string, canonical: string, signature: string): Promise<string | undefined> {
      const pair = await store.findKeyPair(publicKey);
      const secret = pair ? openWith(options.secretKeys, pair.secret_encrypted) : 'no-such-key';
      const expected = createHmac('sha256', secret).update(canonical).digest('hex');
      const matches = /^[0-9a-f]{64}$/.test(signature) && equalHex(expected, signature);
      return pair && matches ? pair.account_id : undefined;
    },
  };
}

export type KeyService = ReturnType<typeof createKeyService>;
