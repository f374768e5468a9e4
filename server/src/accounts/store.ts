// Accounts table: the only place that reads or writes account rows; maps them to the wire type `Account`.
import { randomUUID } from 'node:crypto';
import type { Account } from '../../../generated/client/types.gen.ts';
import type { AccountRow } from '../db/account-row.ts';
import type { Database } from '../db/database.ts';
import { fromMinor, now, toBool, toIso } from '../db/rows.ts';
import { paginate, type Page } from '../http/pagination.ts';

// The features name the row through its store, which alone reads and writes it.
export type { AccountRow };

/** Funds that can still be reserved: balance + credit limit (when overdraft is on) − active reservations. */
export function availableMinor(row: AccountRow): number {
  const credit = toBool(row.overdraft_enabled) ? Number(row.credit_limit_minor) : 0;
  return Number(row.balance_minor) + credit - Number(row.reserved_minor);
}

export function toAccount(row: AccountRow): Account {
  return {
    id: row.id,
    name: row.name,
    balance: fromMinor(row.balance_minor),
    currency: row.currency,
    credit_limit: fromMinor(row.credit_limit_minor),
    overdraft_enabled: toBool(row.overdraft_enabled),
    tariff_plan: row.tariff_plan,
    blocked: toBool(row.blocked),
    available: fromMinor(availableMinor(row)),
    created_at: toIso(row.created_at),
  };
}

/** The columns an operator may change. */
export type AccountPatch = Partial<
  Pick<AccountRow, 'name' | 'credit_limit_minor' | 'overdraft_enabled' | 'tariff_plan' | 'blocked'>
>;

export interface NewAccount {
  name?: string | null;
  currency: string;
  creditLimitMinor?: number;
  overdraftEnabled?: boolean;
  tariffPlan?: string;
}

export function createAccountStore(db: Database) {
  return {
    async insert(account: NewAccount): Promise<AccountRow> {
      const timestamp = now();
      const row = {
        id: randomUUID(),
        name: account.name ?? null,
        currency: account.currency,
        balance_minor: 0,
        reserved_minor: 0,
        credit_limit_minor: account.creditLimitMinor ?? 0,
        overdraft_enabled: account.overdraftEnabled ?? false,
        tariff_plan: account.tariffPlan ?? 'standard',
        blocked: false,
        created_at: timestamp,
        updated_at: timestamp,
      };
      await db('accounts').insert(row);
      return row;
    },
    async find(id: string, trx: Database = db): Promise<AccountRow | undefined> {
      return trx<AccountRow>('accounts').where({ id }).first();
    },
    async update(id: string, changes: AccountPatch): Promise<AccountRow | undefined> {
      await db('accounts')
        .where({ id })
        .update({ ...changes, updated_at: now() });
      return this.find(id);
    },
    async list(options: { limit?: number; after?: string }): Promise<Page<Account>> {
      return paginate<AccountRow, Account>(db('accounts').select('*'), options, toIso, toAccount);
    },
  };
}

export type AccountStore = ReturnType<typeof createAccountStore>;
