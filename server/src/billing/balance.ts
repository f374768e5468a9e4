// The seed's balance object: balance, credit, what is available, and this month's usage from real rows.
import type { Balance } from '../../../generated/client/types.gen.ts';
import { availableMinor, type AccountRow } from '../accounts/store.ts';
import type { Database } from '../db/database.ts';
import { fromMinor, toBool } from '../db/rows.ts';

function monthStart(date = new Date()): string {
  return new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1)).toISOString();
}

/** The balance of an account, read now (the caller's account row may be a remembered copy from authentication). */
export async function balanceOf(db: Database, accountId: string): Promise<Balance> {
  const account = (await db<AccountRow>('accounts').where({ id: accountId }).first())!;
  const since = monthStart();
  const minutes = (await db('transcriptions')
    .where({ account_id: account.id, status: 'completed' })
    .andWhere('created_at', '>=', since)
    .select('priority', 'mode')
    .sum({ minutes: 'minutes_billed' })
    .groupBy('priority', 'mode')) as { priority: string; mode: string; minutes: number | string | null }[];
  const charged = await db('ledger_entries')
    .where({ account_id: account.id, kind: 'capture' })
    .andWhere('created_at', '>=', since)
    .sum({ total: 'amount_minor' })
    .first();
  const sumOf = (lightning: boolean) =>
    minutes
      .filter((m) => (m.priority === 'lightning' || m.mode === 'stream') === lightning)
      .reduce((sum, m) => sum + Number(m.minutes ?? 0), 0);
  const balanceMinor = Number(account.balance_minor);
  return {
    balance: fromMinor(balanceMinor),
    currency: account.currency,
    credit_limit: fromMinor(account.credit_limit_minor),
    overdraft_enabled: toBool(account.overdraft_enabled),
    overdraft_used: fromMinor(Math.max(0, -balanceMinor)),
    available_credit: fromMinor(availableMinor(account)),
    tariff_plan: account.tariff_plan,
    usage_current_month: {
      minutes_lightning: sumOf(true),
      minutes_queue: sumOf(false),
      total_cost: fromMinor(-Number(charged?.total ?? 0)),
    },
  };
}
