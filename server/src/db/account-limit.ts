// Per-account limits (unfinished transcription tasks, live keys, open stream sessions) are "count, then insert": two
// requests that count at once both see room and both insert. On PostgreSQL several server processes share the
// database, so the count and the insert run in one transaction holding an advisory lock of (limit, account): the
// second request waits until the first has committed and then counts its row. Other accounts and other limits never
// wait. SQLite has one writer (one connection in the pool), so the transaction alone serialises them.
import { hash } from 'node:crypto';
import { databaseKind, type Database } from './database.ts';

export type AccountLimit = 'unfinished_transcriptions' | 'live_api_keys' | 'open_stream_sessions';

/** The lock's 64-bit key: the first 8 bytes of SHA-256 of (limit, account), as the signed bigint PostgreSQL takes. */
function lockKey(limit: AccountLimit, accountId: string): string {
  return Buffer.from(hash('sha256', `${limit}:${accountId}`, 'hex'), 'hex')
    .readBigInt64BE(0)
    .toString();
}

/**
 * Runs `work` (count and insert, on `trx` only) atomically against every other caller of the same limit and account.
 * `work` must not use the pool (`db`) inside: on SQLite that waits for the one connection the transaction holds.
 */
export async function withAccountLimit<T>(
  db: Database,
  limit: AccountLimit,
  accountId: string,
  work: (trx: Database) => Promise<T>,
): Promise<T> {
  return db.transaction(async (trx) => {
    if (databaseKind(db) === 'postgres') {
      await trx.raw('SELECT pg_advisory_xact_lock(?::bigint)', [lockKey(limit, accountId)]);
    }
    return work(trx);
  });
}
