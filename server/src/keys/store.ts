// api_keys and key_pairs tables; maps rows to the wire types `ApiKey` and key-pair records.
import type { ApiKey } from '../../../generated/client/types.gen.ts';
import type { AccountRow } from '../accounts/store.ts';
import type { Database } from '../db/database.ts';
import { hotRead } from '../db/hot-reads.ts';
import { now, toIso, toIsoOrNull } from '../db/rows.ts';
import { paginate, type Page } from '../http/pagination.ts';

export interface ApiKeyRow {
  id: string;
  account_id: string;
  name: string | null;
  prefix: string;
  secret_hash: string;
  created_at: string | Date;
  last_used_at: string | Date | null;
  revoked_at: string | Date | null;
}

export interface KeyPairRow {
  id: string;
  account_id: string;
  public_key: string;
  secret_encrypted: string;
  created_at: string | Date;
  revoked_at: string | Date | null;
}

export const toApiKey = (row: ApiKeyRow): ApiKey => ({
  id: row.id,
  name: row.name,
  prefix: row.prefix,
  created_at: toIso(row.created_at),
  last_used_at: toIsoOrNull(row.last_used_at),
  revoked_at: toIsoOrNull(row.revoked_at),
});

/** A key with its account as one row: the account's columns and the key's under `key_` names. */
type KeyWithAccountRow = AccountRow & {
  key_id: string;
  key_name: string | null;
  key_prefix: string;
  key_secret_hash: string;
  key_created_at: string | Date;
  key_last_used_at: string | Date | null;
  key_revoked_at: string | Date | null;
};

export function createKeyStore(db: Database) {
  // Runs for every Bearer key the credential cache does not hold: fixed SQL, no query building per call.
  const findKeyWithAccount = hotRead<KeyWithAccountRow>(
    db,
    `SELECT accounts.*, api_keys.id AS key_id, api_keys.name AS key_name, api_keys.prefix AS key_prefix,
        api_keys.secret_hash AS key_secret_hash, api_keys.created_at AS key_created_at,
        api_keys.last_used_at AS key_last_used_at, api_keys.revoked_at AS key_revoked_at
      FROM api_keys INNER JOIN accounts ON accounts.id = api_keys.account_id
      WHERE api_keys.prefix = ? LIMIT 1`,
  );
  return {
    async insertApiKey(row: ApiKeyRow, trx: Database = db): Promise<void> {
      await trx('api_keys').insert(row);
    },
    async countLiveApiKeys(accountId: string, trx: Database = db): Promise<number> {
      const result = await trx('api_keys')
        .where({ account_id: accountId })
        .whereNull('revoked_at')
        .count({ n: '*' })
        .first();
      return Number(result?.n ?? 0);
    },
    /** The key of a prefix together with its account, in one query (this runs on every v3 request). */
    async findApiKeyWithAccount(prefix: string): Promise<{ key: ApiKeyRow; account: AccountRow } | undefined> {
      const row = await findKeyWithAccount(prefix);
      if (!row) return undefined;
      const {
        key_id,
        key_name,
        key_prefix,
        key_secret_hash,
        key_created_at,
        key_last_used_at,
        key_revoked_at,
        ...account
      } = row;
      return {
        key: {
          id: key_id,
          account_id: account.id,
          name: key_name,
          prefix: key_prefix,
          secret_hash: key_secret_hash,
          created_at: key_created_at,
          last_used_at: key_last_used_at,
          revoked_at: key_revoked_at,
        },
        account: account as AccountRow,
      };
    },
    async findApiKey(accountId: string, id: string): Promise<ApiKeyRow | undefined> {
      return db<ApiKeyRow>('api_keys').where({ account_id: accountId, id }).first();
    },
    async listApiKeys(accountId: string, options: { limit?: number; after?: string }): Promise<Page<ApiKey>> {
      return paginate<ApiKeyRow, ApiKey>(db('api_keys').where({ account_id: accountId }), options, toIso, toApiKey);
    },
    async revokeApiKey(accountId: string, id: string): Promise<void> {
      await db('api_keys').where({ account_id: accountId, id }).whereNull('revoked_at').update({ revoked_at: now() });
    },
    async touchApiKey(id: string): Promise<void> {
      await db('api_keys').where({ id }).update({ last_used_at: now() });
    },
    async insertKeyPair(row: KeyPairRow): Promise<void> {
      await db('key_pairs').insert(row);
    },
    async findKeyPair(publicKey: string): Promise<KeyPairRow | undefined> {
      return db<KeyPairRow>('key_pairs').where({ public_key: publicKey }).whereNull('revoked_at').first();
    },
  };
}

export type KeyStore = ReturnType<typeof createKeyStore>;
