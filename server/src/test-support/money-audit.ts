// The money audit after a fault: every task final, no reservation left held, no reservation captured twice, and every
// account's balance equal to its top-ups (and adjustments) minus its captures. Read straight from the database.
import type { Database } from '../db/database.ts';

export interface MoneyAudit {
  tasks: number;
  unfinishedTasks: number;
  heldReservations: number;
  doubleCaptures: number;
  /** Accounts whose balance is not top-ups − captures, with both sides. */
  mismatchedAccounts: { id: string; balance: number; ledger: number }[];
  captured: number;
}

const FINAL = ['completed', 'failed', 'cancelled'];

export async function moneyAudit(db: Database): Promise<MoneyAudit> {
  const tasks = await db('transcriptions').select('status');
  const held = await db('reservations').where({ status: 'active' }).count({ n: '*' }).first();
  const captures = (await db('ledger_entries')
    .where({ kind: 'capture' })
    .whereNotNull('reservation_id')
    .groupBy('reservation_id')
    .select('reservation_id')
    .count({ n: '*' })) as { n: number | string }[];
  const accounts = (await db('accounts').select('id', 'balance_minor', 'reserved_minor')) as {
    id: string;
    balance_minor: number | string;
    reserved_minor: number | string;
  }[];
  const sums = (await db('ledger_entries')
    .whereIn('kind', ['topup', 'adjust', 'capture'])
    .groupBy('account_id')
    .select('account_id')
    .sum({ total: 'amount_minor' })) as { account_id: string; total: number | string | null }[];
  const ledgerOf = new Map(sums.map((row) => [row.account_id, Number(row.total ?? 0)]));
  const captured = await db('ledger_entries').where({ kind: 'capture' }).sum({ total: 'amount_minor' }).first();
  return {
    tasks: tasks.length,
    unfinishedTasks: tasks.filter((task: { status: string }) => !FINAL.includes(task.status)).length,
    heldReservations: Number(held?.n ?? 0) + accounts.filter((account) => Number(account.reserved_minor) !== 0).length,
    doubleCaptures: captures.filter((row) => Number(row.n) > 1).length,
    mismatchedAccounts: accounts
      .map((account) => ({
        id: account.id,
        balance: Number(account.balance_minor),
        ledger: ledgerOf.get(account.id) ?? 0,
      }))
      .filter((account) => account.balance !== account.ledger),
    captured: -Number((captured as { total?: number | string | null } | undefined)?.total ?? 0),
  };
}

/** The audit's failures in words (empty when the money held). */
export function auditProblems(audit: MoneyAudit): string[] {
  return [
    ...(audit.unfinishedTasks > 0 ? [`${audit.unfinishedTasks} of ${audit.tasks} tasks not final`] : []),
    ...(audit.heldReservations > 0 ? [`${audit.heldReservations} reservations still held`] : []),
    ...(audit.doubleCaptures > 0 ? [`${audit.doubleCaptures} reservations captured twice`] : []),
    ...audit.mismatchedAccounts.map((a) => `account ${a.id}: balance ${a.balance}, top-ups − captures ${a.ledger}`),
  ];
}
