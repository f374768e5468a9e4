// The ledger: every money movement is an entry, and the account row's balance and reserved sum change in the same
// transaction. A reservation is one conditional UPDATE (available ≥ amount), so concurrent requests can never
// overspend; capture and release settle a reservation exactly once.
import { randomUUID } from 'node:crypto';
import type { LedgerEntry, LedgerEntryKind } from '../../../generated/client/types.gen.ts';
import type { Database } from '../db/database.ts';
import { fixedSqlTransaction, type FixedSql } from '../db/fixed-sql-transaction.ts';
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

// Every write is fixed SQL text (fixed-sql-transaction.ts): these run on nearly every request that costs money.
const SQL = {
  balanceOf: 'SELECT balance_minor FROM accounts WHERE id = ?',
  addToBalance: 'UPDATE accounts SET balance_minor = balance_minor + ?, updated_at = ? WHERE id = ?',
  /** Holds funds only where they are available: the one conditional UPDATE that makes overspending impossible. */
  holdFunds: `UPDATE accounts SET reserved_minor = reserved_minor + ?, updated_at = ? WHERE id = ? AND ${AVAILABLE_SQL} >= ?`,
  releaseFunds: 'UPDATE accounts SET reserved_minor = reserved_minor - ? WHERE id = ?',
  insertEntry:
    'INSERT INTO ledger_entries (id, account_id, kind, amount_minor, balance_after_minor, reference, description, ' +
    'reservation_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
  insertReservation:
    'INSERT INTO reservations (id, account_id, amount_minor, reference, status, created_at, settled_at) ' +
    "VALUES (?, ?, ?, ?, 'active', ?, NULL)",
  reservationOf: 'SELECT account_id, amount_minor, reference FROM reservations WHERE id = ?',
  growReservation: "UPDATE reservations SET amount_minor = amount_minor + ? WHERE id = ? AND status = 'active'",
  /** Grows a reservation only from the amount it was read with: a concurrent change makes it match nothing. */
  growReservationFrom:
    "UPDATE reservations SET amount_minor = ? WHERE id = ? AND status = 'active' AND amount_minor = ?",
  activeReservationOf:
    "SELECT account_id, amount_minor, reference FROM reservations WHERE id = ? AND status = 'active'",
  settleReservation: "UPDATE reservations SET status = ?, settled_at = ? WHERE id = ? AND status = 'active'",
};

interface ReservationRow {
  account_id: string;
  amount_minor: number | string;
  reference: string | null;
}

export interface Reservation {
  id: string;
  accountId: string;
  amountMinor: number;
}

export function createLedger(db: Database) {
  const transaction = fixedSqlTransaction(db);

  async function record(
    sql: FixedSql,
    accountId: string,
    kind: LedgerEntryKind,
    amountMinor: number,
    extra: { reference?: string | null; description?: string | null; reservationId?: string | null } = {},
  ): Promise<LedgerRow> {
    const account = await sql.get<{ balance_minor: number | string }>(SQL.balanceOf, accountId);
    const row: LedgerRow = {
      id: randomUUID(),
      account_id: accountId,
      kind,
      amount_minor: amountMinor,
      balance_after_minor: Number(account!.balance_minor),
      reference: extra.reference ?? null,
      description: extra.description ?? null,
      reservation_id: extra.reservationId ?? null,
      created_at: now(),
    };
    await sql.run(
      SQL.insertEntry,
      row.id,
      row.account_id,
      row.kind,
      row.amount_minor,
      row.balance_after_minor,
      row.reference,
      row.description,
      row.reservation_id,
      row.created_at,
    );
    return row;
  }

  async function changeBalance(sql: FixedSql, accountId: string, deltaMinor: number): Promise<void> {
    const updated = await sql.run(SQL.addToBalance, deltaMinor, now(), accountId);
    if (updated === 0) throw errors.notFound('id', 'account');
  }

  return {
    /** Adds funds (topup, amount > 0) or corrects the balance (adjust, amount ≠ 0). */
    async credit(accountId: string, kind: 'topup' | 'adjust', amountMinor: number, description: string | null = null) {
      return transaction(async (sql) => {
        await changeBalance(sql, accountId, amountMinor);
        return toLedgerEntry(await record(sql, accountId, kind, amountMinor, { description }));
      });
    },

    /** Holds funds atomically; throws 402 insufficient_balance when the available funds do not cover them. */
    async reserve(accountId: string, amountMinor: number, reference: string | null = null): Promise<Reservation> {
      return transaction(async (sql) => {
        const at = now();
        const updated = await sql.run(SQL.holdFunds, amountMinor, at, accountId, amountMinor);
        if (updated === 0) throw errors.insufficientBalance();
        const id = randomUUID();
        await sql.run(SQL.insertReservation, id, accountId, amountMinor, reference, at);
        await record(sql, accountId, 'reserve', -amountMinor, { reference, reservationId: id });
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
        return await transaction(async (sql) => {
          // Reservation first: its row lock (PostgreSQL) keeps a concurrent settle from interleaving.
          const grown = await sql.run(SQL.growReservation, addMinor, reservationId);
          if (grown === 0) return false;
          const reservation = (await sql.get<ReservationRow>(SQL.reservationOf, reservationId))!;
          const updated = await sql.run(SQL.holdFunds, addMinor, now(), reservation.account_id, addMinor);
          if (updated === 0) throw notCovered; // rolls the reservation change back
          await record(sql, reservation.account_id, 'reserve', -addMinor, {
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
     * Makes an active reservation hold at least `totalMinor` (a task whose decoded audio costs more than its container
     * declared), holding only the difference, with the same atomic check of the available funds as `reserve`. A
     * reservation already that large is left as it is, so a job that runs again after a crash holds nothing twice.
     * `not_covered` when the available funds do not cover the difference (nothing changes); `settled` when the
     * reservation is no longer active (a job resumed after its capture: nothing more is held or charged).
     */
    async reserveAtLeast(reservationId: string, totalMinor: number): Promise<'held' | 'not_covered' | 'settled'> {
      const notCovered = new Error('not covered');
      try {
        return await transaction(async (sql) => {
          const reservation = await sql.get<ReservationRow>(SQL.activeReservationOf, reservationId);
          if (!reservation) return 'settled';
          const held = Number(reservation.amount_minor);
          if (held >= totalMinor) return 'held';
          const addMinor = totalMinor - held;
          // Compare-and-set on the amount read: a settle or grow in between leaves this one matching nothing.
          const grown = await sql.run(SQL.growReservationFrom, totalMinor, reservationId, held);
          if (grown === 0) return 'settled';
          const updated = await sql.run(SQL.holdFunds, addMinor, now(), reservation.account_id, addMinor);
          if (updated === 0) throw notCovered; // rolls the reservation change back
          await record(sql, reservation.account_id, 'reserve', -addMinor, {
            reference: reservation.reference,
            reservationId,
          });
          return 'held';
        });
      } catch (error) {
        if (error === notCovered) return 'not_covered';
        throw error;
      }
    },

    /**
     * Settles a reservation: releases the hold and charges `chargeMinor` (0 = release only). Idempotent: a
     * reservation that is already settled is left alone and `false` is returned, so nothing is charged twice.
     */
    async settle(reservationId: string, chargeMinor: number, description: string | null = null): Promise<boolean> {
      return transaction(async (sql) => {
        const status = chargeMinor > 0 ? 'captured' : 'released';
        const settled = await sql.run(SQL.settleReservation, status, now(), reservationId);
        if (settled === 0) return false;
        const reservation = (await sql.get<ReservationRow>(SQL.reservationOf, reservationId))!;
        const held = Number(reservation.amount_minor);
        await sql.run(SQL.releaseFunds, held, reservation.account_id);
        await record(sql, reservation.account_id, 'release', held, { reference: reservation.reference, reservationId });
        if (chargeMinor > 0) {
          await changeBalance(sql, reservation.account_id, -chargeMinor);
          await record(sql, reservation.account_id, 'capture', -chargeMinor, {
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
