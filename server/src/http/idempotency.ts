// Idempotency-Key on creating POSTs: the same key with the same body within 24 h replays the stored response; the
// same key with another body (or another operation) is 409 idempotency_key_reused. The key is claimed before the
// handler runs, so two concurrent requests with one key cannot both create something; a request that fails with an
// error is not stored, so it can be retried with the same key.
import { createHash } from 'node:crypto';
import type { Database } from '../db/database.ts';
import { now } from '../db/rows.ts';
import { ApiError, errors } from './api-error.ts';

const TTL_MS = 24 * 60 * 60 * 1000;

export interface StoredResponse {
  status: number;
  body: unknown;
  headers: Record<string, string>;
}

export function requestHash(operationId: string, rawBody: Buffer | undefined): string {
  return createHash('sha256')
    .update(operationId)
    .update('\0')
    .update(rawBody ?? Buffer.alloc(0))
    .digest('hex');
}

export function createIdempotencyStore(db: Database) {
  return {
    /** Claims the key, or returns the stored response to replay; throws 409 on a conflict. */
    async claim(
      accountId: string,
      key: string,
      operationId: string,
      hash: string,
    ): Promise<StoredResponse | undefined> {
      const existing = await db('idempotency_keys').where({ account_id: accountId, key }).first();
      if (existing && Date.now() - new Date(existing.created_at).getTime() > TTL_MS) {
        await db('idempotency_keys').where({ account_id: accountId, key }).delete();
      } else if (existing) {
        if (existing.request_hash !== hash || existing.operation_id !== operationId)
          throw errors.idempotencyKeyReused();
        if (existing.response_status === null) {
          throw new ApiError(
            409,
            'idempotency_key_reused',
            'A request with this Idempotency-Key is still in progress.',
          );
        }
        return {
          status: Number(existing.response_status),
          body: JSON.parse(existing.response_body as string),
          headers: JSON.parse(existing.response_headers as string) as Record<string, string>,
        };
      }
      try {
        await db('idempotency_keys').insert({
          account_id: accountId,
          key,
          operation_id: operationId,
          request_hash: hash,
          response_status: null,
          response_body: null,
          response_headers: null,
          created_at: now(),
        });
      } catch {
        // Another request claimed the key between our read and insert.
        throw new ApiError(409, 'idempotency_key_reused', 'A request with this Idempotency-Key is still in progress.');
      }
      return undefined;
    },
    async complete(accountId: string, key: string, response: StoredResponse): Promise<void> {
      await db('idempotency_keys')
        .where({ account_id: accountId, key })
        .update({
          response_status: response.status,
          response_body: JSON.stringify(response.body),
          response_headers: JSON.stringify(response.headers),
        });
    },
    async abandon(accountId: string, key: string): Promise<void> {
      await db('idempotency_keys').where({ account_id: accountId, key }).delete();
    },
  };
}

export type IdempotencyStore = ReturnType<typeof createIdempotencyStore>;
