// A short-lived in-process memory of authenticated Bearer keys, so a busy client costs one database read per key per
// TTL instead of one per request. It is keyed by the SHA-256 of the secret (never the secret itself) and is cleared
// whenever this process revokes a key or changes an account. Another process (a second server, the CLI) is seen at
// most one TTL late: `SCRIBE_AUTH_CACHE_MS` (default 2000, 0 turns the cache off) bounds how long a key revoked or
// an account blocked elsewhere keeps working here. Balances are never read from it: billing reads the account row.
import { LRUCache } from 'lru-cache';
import type { AccountRow } from '../accounts/store.ts';
import type { ApiKeyRow } from './store.ts';

export interface Credential {
  key: ApiKeyRow;
  account: AccountRow;
}

export interface CredentialCache {
  get(secretHash: string): Credential | undefined;
  set(secretHash: string, credential: Credential): void;
  /** Forget everything: called on revoke, block, unblock and account changes. */
  clear(): void;
}

const MAX_ENTRIES = 10_000;

export function createCredentialCache(ttlMs: number): CredentialCache {
  if (ttlMs <= 0) return { get: () => undefined, set: () => undefined, clear: () => undefined };
  const cache = new LRUCache<string, Credential>({ max: MAX_ENTRIES, ttl: ttlMs });
  return {
    get: (secretHash) => cache.get(secretHash),
    set: (secretHash, credential) => void cache.set(secretHash, credential),
    clear: () => cache.clear(),
  };
}
