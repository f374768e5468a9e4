// The ledger: every money movement is an entry, and the account row's balance and reserved sum change in the same
// transaction. A reservation is one conditional UPDATE (available ≥ amount), so concurrent requests can never
// overspend; capture and release settle a reservation exactly once.
import { randomUUID } from 'node:crypto';
import type { LedgerEntry, LedgerEntryKind } from '../../../generated/client/types.gen.ts';
import type { Database } from '../db/database.ts';
import { fromMinor, now, toIso } from '../db/rows.ts';
import { errors } from '../http/api-error.ts';
import { paginate, type Page } from '../http/pagination.ts';

interface LedgerRow {
  id: string;
  account_id: string;
  kind: LedgerEntryKind;
  amount_minor: number | string;
  balance_after_minor: number | string;
  reference: string | null;
  description: string | null;
  reservation_id: string | null;
  created_at: string | Date;
}

const toLedgerEntry = (row: LedgerRow): LedgerEntry => ({
  id: row.id,
  kind: row.kind,
  amount: fromMinor(row.amount_minor),
  balance_after: fromMinor(row.balance_after_minor),
  reference: row.reference,
  description: row.description,
  created_at: toIso(row.created_at),
});

/** SQL for "funds that can still be reserved" of an account row. */
const AVAILABLE_SQL =
  'balance_minor + (CASE WHEN overdraft_enabled THEN credit_limit_minor ELSE 0 END) - reserved_minor';

export interface Reservation {
  id: string;
  accountId: string;
  amountMinor: number;
}

export function createLedger(db: Database) {
  async function record(
    trx: Database,
    accountId: string,
    kind: LedgerEntryKind,
    amountMinor: number,
    extra: { reference?: string | null; description?: string | null; reservationId?: string | null } = {},
  ): Promise<LedgerRow> {
    const account = await trx('accounts').where({ id: accountId }).first('balance_minor');
    const row: LedgerRow = {
      id: randomUUID(),
      account_id: accountId,
      kind,
      amount_minor: amountMinor,
      balance_after_minor: Number(account.balance_minor),
      reference: extra.reference ?? null,
      description: extra.description ?? null,
      reservation_id: extra.reservationId ?? null,
      created_at: now(),
    };
    await trx('ledger_entries').insert(row);
    return row;
  }

  async function changeBalance(trx: Database, accountId: string, deltaMinor: number): Promise<void> {
    const updated = await trx('accounts')
      .where({ id: accountId })
      .update({ balance_minor: trx.raw('balance_minor + ?', [deltaMinor]), updated_at: now() });
    if (updated === 0) throw errors.notFound('id', 'account');
  }

  return {
    /** Adds funds (topup, amount > 0) or corrects the balance (adjust, amount ≠ 0). */
    async credit(accountId: string, kind: 'topup' | 'adjust', amountMinor: number, description: string | null = null) {
      return db.transaction(async (trx) => {
        await changeBalance(trx, accountId, amountMinor);
        return toLedgerEntry(await record(trx, accountId, kind, amountMinor, { description }));
      });
    },

    /** Holds funds atomically; throws 402 insufficient_balance when the available funds do not cover them. */
    async reserve(accountId: string, amountMinor: number, reference: string | null = null): Promise<Reservation> {
      return db.transaction(async (trx) => {
        const updated = await trx('accounts')
          .where({ id: accountId })
          .andWhere(trx.raw(`${AVAILABLE_SQL} >= ?`, [amountMinor]))
          .update({ reserved_minor: trx.raw('reserved_minor + ?', [amountMinor]), updated_at: now() });
        if (updated === 0) throw errors.insufficientBalance();
        const id = randomUUID();
        await trx('reservations').insert({
          id,
          account_id: accountId,
          amount_minor: amountMinor,
          reference,
          status: 'active',
          created_at: now(),
          settled_at: null,
        });
        await record(trx, accountId, 'reserve', -amountMinor, { reference, reservationId: id });
        return { id, accountId, amountMinor };
      });
    },

    /**
     * Adds to an active reservation (a stream session that outgrows what it reserved), with the same atomic check of
     * the available funds as `reserve`; false when the funds do not cover it or the reservation is settled.
     */
    async extend(reservationId: string, addMinor: number): Promise<boolean> {
      const notCovered = new Error('not covered');
      try {
        return await db.transaction(async (trx) => {
          // Reservation first: its row lock (PostgreSQL) keeps a concurrent settle from interleaving.
          const grown = await trx('reservations')
            .where({ id: reservationId, status: 'active' })
            .update({ amount_minor: trx.raw('amount_minor + ?', [addMinor]) });
          if (grown === 0) return false;
          const reservation = await trx('reservations').where({ id: reservationId }).first();
          const updated = await trx('accounts')
            .where({ id: reservation.account_id })
            .andWhere(trx.raw(`${AVAILABLE_SQL} >= ?`, [addMinor]))
            .update({ reserved_minor: trx.raw('reserved_minor + ?', [addMinor]), updated_at: now() });
          if (updated === 0) throw notCovered; // rolls the reservation change back
          await record(trx, reservation.account_id, 'reserve', -addMinor, {
            reference: reservation.reference,
            reservationId,
          });
          return true;
        });
      } catch (error) {
        if (error === notCovered) return false;
        throw error;
      }
    },

    /**
     * Settles a reservation: releases the hold and charges `chargeMinor` (0 = release only). Idempotent: a
     * reservation that is already settled is left alone and `false` is returned, so nothing is charged twice.
     */
    async settle(reservationId: string, chargeMinor: number, description: string | null = null): Promise<boolean> {
      return db.transaction(async (trx) => {
        const settled = await trx('reservations')
          .where({ id: reservationId, status: 'active' })
          .update({ status: chargeMinor > 0 ? 'captured' : 'released', settled_at: now() });
        if (settled === 0) return false;
        const reservation = await trx('reservations').where({ id: reservationId }).first();
        const held = Number(reservation.amount_minor);
        await trx('accounts')
          .where({ id: reservation.account_id })
          .update({ reserved_minor: trx.raw('reserved_minor - ?', [held]) });
        await record(trx, reservation.account_id, 'release', held, { reference: reservation.reference, reservationId });
        if (chargeMinor > 0) {
          await changeBalance(trx, reservation.account_id, -chargeMinor);
          await record(trx, reservation.account_id, 'capture', -chargeMinor, {
            reference: reservation.reference,
            description,
            reservationId,
          });
        }
        return true;
      });
    },

    async list(accountId: string, options: { limit?: number; after?: string }): Promise<Page<LedgerEntry>> {
      return paginate<LedgerRow, LedgerEntry>(
        db('ledger_entries').where({ account_id: accountId }),
        options,
        toIso,
        toLedgerEntry,
      );
    },
  };
}

export type Ledger = ReturnType<typeof createLedger>;
