// Idempotency-Key on creating POSTs: the same key with the same body (for a multipart form: the same fields and file)
// within 24 h replays the stored response; the same key with another body (or another operation) is 409
// idempotency_key_reused. The key is claimed before the handler runs, so two concurrent requests with one key cannot both create something; a request that fails with an
// error is not stored, so it can be retried with the same key.
import { createHash } from 'node:crypto';
import type { Database } from '../db/database.ts';
import type { MultipartUpload } from '../media/multipart.ts';
import { now } from '../db/rows.ts';
import { openWith, seal, type SecretKeys } from '../secrets/secret-box.ts';
import { ApiError, errors } from './api-error.ts';

const TTL_MS = 24 * 60 * 60 * 1000;

/** Marks a stored answer sealed with the server key (rows written before sealing are plain JSON). */
const SEALED = 'sealed:';

export interface StoredResponse {
  status: number;
  body: unknown;
  headers: Record<string, string>;
}

/**
 * What "the same request" means for a multipart form: its parsed fields and the file's name, type and SHA-256, not the
 * raw bytes. Clients pick a new random boundary for every send, so two sends of one form differ byte for byte; a user
 * retrying the same upload expects a replay, and one sending another file (or other fields) a 409.
 */
function formFingerprint(upload: MultipartUpload): string {
  const sorted = <T>(record: Record<string, T>) =>
    Object.keys(record)
      .sort()
      .map((name) => [name, record[name]] as const);
  const file = upload.file && {
    filename: upload.file.filename,
    mimeType: upload.file.mimeType,
    size: upload.file.size,
    sha256: upload.file.sha256,
  };
  return JSON.stringify({ fields: sorted(upload.fields), lists: sorted(upload.lists), file: file ?? null });
}

/** The request's fingerprint: the JSON body's bytes, or a multipart form's fields and file content. */
export function requestHash(operationId: string, body: Buffer | MultipartUpload | undefined): string {
  const hash = createHash('sha256').update(operationId).update('\0');
  if (Buffer.isBuffer(body)) hash.update(body);
  else if (body) hash.update('multipart\0').update(formFingerprint(body));
  return hash.digest('hex');
}

/**
 * Whose key it is: an account's (keys are per account), or the operator's on the admin surface (one namespace, in a
 * table of its own since those requests belong to no account).
 */
export type IdempotencyOwner = { accountId: string } | 'admin';

function rowsOf(db: Database, owner: IdempotencyOwner, key: string) {
  return owner === 'admin'
    ? db('admin_idempotency_keys').where({ key })
    : db('idempotency_keys').where({ account_id: owner.accountId, key });
}

/**
 * `secretKeys` seal the stored answers at rest (the box of the v2 secrets): an answer may carry a secret made once
 * (an API key, a key pair's secret, a webhook's signing secret), which a replay has to give back but the database
 * should not hold in clear.
 */
export function createIdempotencyStore(db: Database, secretKeys?: SecretKeys) {
  const sealBody = (json: string) => (secretKeys ? `${SEALED}${seal(secretKeys.current, json)}` : json);
  const openBody = (stored: string) =>
    stored.startsWith(SEALED) && secretKeys ? openWith(secretKeys, stored.slice(SEALED.length)) : stored;
  return {
    /** Claims the key, or returns the stored response to replay; throws 409 on a conflict. */
    async claim(
      owner: IdempotencyOwner,
      key: string,
      operationId: string,
      hash: string,
    ): Promise<StoredResponse | undefined> {
      const existing = await rowsOf(db, owner, key).first();
      if (existing && Date.now() - new Date(existing.created_at).getTime() > TTL_MS) {
        await rowsOf(db, owner, key).delete();
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
          body: JSON.parse(openBody(existing.response_body as string)),
          headers: JSON.parse(existing.response_headers as string) as Record<string, string>,
        };
      }
      const row = {
        key,
        operation_id: operationId,
        request_hash: hash,
        response_status: null,
        response_body: null,
        response_headers: null,
        created_at: now(),
      };
      try {
        if (owner === 'admin') await db('admin_idempotency_keys').insert(row);
        else await db('idempotency_keys').insert({ account_id: owner.accountId, ...row });
      } catch {
        // Another request claimed the key between our read and insert.
        throw new ApiError(409, 'idempotency_key_reused', 'A request with this Idempotency-Key is still in progress.');
      }
      return undefined;
    },
    async complete(owner: IdempotencyOwner, key: string, response: StoredResponse): Promise<void> {
      await rowsOf(db, owner, key).update({
        response_status: response.status,
        response_body: sealBody(JSON.stringify(response.body)),
        response_headers: JSON.stringify(response.headers),
      });
    },
    async abandon(owner: IdempotencyOwner, key: string): Promise<void> {
      await rowsOf(db, owner, key).delete();
    },
  };
}

export type IdempotencyStore = ReturnType<typeof createIdempotencyStore>;
