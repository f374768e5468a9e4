// Accounts, their keys and their money, built together: every other part charges through the ledger and
// authenticates through the key service, and the admin and key operations are their HTTP face.
import type { OpenAPIBackend } from 'openapi-backend';
import type { Config } from '../config.ts';
import { createLedger } from '../billing/ledger.ts';
import type { Database } from '../db/database.ts';
import { limitOf } from '../http/contract-limits.ts';
import type { HandlerGroup } from '../http/operation.ts';
import { createCredentialCache } from '../keys/credential-cache.ts';
import { keyHandlers } from '../keys/handlers.ts';
import { createKeyService } from '../keys/service.ts';
import { createKeyStore } from '../keys/store.ts';
import { adminHandlers } from './admin-handlers.ts';
import { createAccountService } from './service.ts';
import { createAccountStore } from './store.ts';
import type { SecretKeys } from '../secrets/secret-box.ts';

export function buildAccounts(db: Database, api: OpenAPIBackend, config: Config, secretKeys: SecretKeys) {
  const accountStore = createAccountStore(db);
  const keyStore = createKeyStore(db);
  const keys = createKeyService(db, keyStore, {
    secretKeys,
    maxLiveKeys: limitOf(api, 'createApiKey', 'max_live_keys_per_account'),
    credentials: createCredentialCache(config.authCacheMs),
  });
  const ledger = createLedger(db);
  const accounts = createAccountService(accountStore, ledger, keys, config.currency);
  const handlers: HandlerGroup = {
    ...keyHandlers(keys, keyStore),
    ...adminHandlers(accounts, accountStore, ledger, keys),
  };
  return { accountStore, keys, ledger, accounts, handlers };
}

export type AccountsPart = ReturnType<typeof buildAccounts>;
