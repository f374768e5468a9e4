// Account operations shared by the admin HTTP surface and the CLI: create (with an initial top-up and, by default,
// a v3 key and a v2 key pair in one step), change, block, add funds.
import type { Account, AccountCreated, AccountCreateRequest } from '../../../generated/client/types.gen.ts';
import type { Ledger } from '../billing/ledger.ts';
import { toMinor } from '../db/rows.ts';
import { errors } from '../http/api-error.ts';
import type { KeyService } from '../keys/service.ts';
import { toAccount, type AccountPatch, type AccountRow, type AccountStore } from './store.ts';

export function createAccountService(store: AccountStore, ledger: Ledger, keys: KeyService, defaultCurrency: string) {
  async function existing(id: string): Promise<AccountRow> {
    const row = await store.find(id);
    if (!row) throw errors.notFound('id', 'account');
    return row;
  }

  return {
    existing,
    async get(id: string): Promise<Account> {
      return toAccount(await existing(id));
    },
    async create(request: AccountCreateRequest = {}): Promise<AccountCreated> {
      const row = await store.insert({
        name: request.name ?? null,
        currency: request.currency ?? defaultCurrency,
        creditLimitMinor: toMinor(request.credit_limit ?? 0),
        overdraftEnabled: request.overdraft_enabled ?? false,
        tariffPlan: request.tariff_plan ?? 'standard',
      });
      if (request.balance && request.balance > 0) {
        await ledger.credit(row.id, 'topup', toMinor(request.balance), 'Initial balance');
      }
      const issueKeys = request.issue_keys ?? true;
      const apiKey = issueKeys ? await keys.issueApiKey(row.id, 'default') : undefined;
      const pair = issueKeys ? await keys.issueKeyPair(row.id) : undefined;
      return {
        account: toAccount((await store.find(row.id))!),
        api_key: apiKey?.secret ?? null,
        public_key: pair?.public_key ?? null,
        secret: pair?.secret ?? null,
      };
    },
    async topUp(id: string, kind: 'topup' | 'adjust', amount: number, description: string | null): Promise<Account> {
      await existing(id);
      const minor = toMinor(amount);
      if (kind === 'topup' && minor <= 0)
        throw errors.invalidParameter('amount', 'A top-up amount must be greater than 0.');
      if (kind === 'adjust' && minor === 0) throw errors.invalidParameter('amount', 'An adjustment must not be 0.');
      await ledger.credit(id, kind, minor, description);
      return this.get(id);
    },
    async setBlocked(id: string, blocked: boolean): Promise<Account> {
      return this.update(id, { blocked });
    },
    async update(id: string, patch: AccountPatch): Promise<Account> {
      await existing(id);
      const row = await store.update(id, patch);
      keys.forgetCredentials();
      return toAccount(row!);
    },
  };
}

export type AccountService = ReturnType<typeof createAccountService>;
