// stream_sessions rows: every state change is one conditional UPDATE, so a ticket is claimed by one connection only
// and a session ends exactly once, whichever process (the connection's or a sweeper) gets there first.
import type { Database } from '../db/database.ts';

export type StreamSessionStatus = 'created' | 'connected' | 'completed' | 'dropped' | 'expired';
const ENDED: StreamSessionStatus[] = ['completed', 'dropped', 'expired'];

export interface StreamSessionRow {
  id: string;
  account_id: string;
  ticket_hash: string;
  status: StreamSessionStatus;
  reservation_id: string | null;
  reserved_seconds: number;
  expires_at: string | Date;
  lease_owner: string | null;
  lease_expires_at: string | Date | null;
  config: string | null;
  duration_seconds: number | null;
  minutes_billed: number | null;
  cost_minor: number | string | null;
  end_reason: string | null;
  created_at: string | Date;
  connected_at: string | Date | null;
  ended_at: string | Date | null;
}

export function createStreamSessionStore(db: Database) {
  const table = (trx: Database = db) => trx<StreamSessionRow>('stream_sessions');
  return {
    async insert(row: StreamSessionRow, trx: Database = db): Promise<void> {
      await table(trx).insert(row);
    },

    async get(id: string): Promise<StreamSessionRow | undefined> {
      return table().where({ id }).first();
    },

    async findByTicket(hash: string): Promise<StreamSessionRow | undefined> {
      return table().where({ ticket_hash: hash }).first();
    },

    /** Sessions of the account that hold a place: connected, or created with a ticket still valid. */
    async countOpen(
      accountId: string,
      nowIso: string,
      options: { onlyConnected?: boolean; trx?: Database } = {},
    ): Promise<number> {
      const { onlyConnected = false, trx = db } = options;
      const query = table(trx).where({ account_id: accountId });
      if (onlyConnected) void query.andWhere({ status: 'connected' });
      else
        void query.andWhere((q) =>
          q
            .where({ status: 'connected' })
            .orWhere((c) => c.where({ status: 'created' }).andWhere('expires_at', '>', nowIso)),
        );
      const row = await query.count({ n: '*' }).first();
      return Number(row?.n ?? 0);
    },

    /** Claims the ticket for one connection: true only for the first claim of a valid, unexpired ticket. */
    async claim(hash: string, owner: string, nowIso: string, leaseIso: string): Promise<boolean> {
      const updated = await table()
        .where({ ticket_hash: hash, status: 'created' })
        .andWhere('expires_at', '>', nowIso)
        .update({ status: 'connected', lease_owner: owner, lease_expires_at: leaseIso, connected_at: nowIso });
      return updated === 1;
    },

    async renew(id: string, owner: string, leaseIso: string): Promise<boolean> {
      return (
        (await table()
          .where({ id, lease_owner: owner, status: 'connected' })
          .update({ lease_expires_at: leaseIso })) === 1
      );
    },

    async update(id: string, fields: Partial<StreamSessionRow>): Promise<void> {
      await table().where({ id }).update(fields);
    },

    /** Moves a session from one of `from` to a final state; false when another party ended it first. */
    async end(id: string, from: StreamSessionStatus[], fields: Partial<StreamSessionRow>): Promise<boolean> {
      return (await table().where({ id }).whereIn('status', from).update(fields)) === 1;
    },

    /** Connected sessions this process holds whose account has been blocked since (they are to be ended). */
    async heldOfBlockedAccounts(owner: string): Promise<string[]> {
      const rows = await table()
        .join('accounts', 'accounts.id', 'stream_sessions.account_id')
        .where({ 'stream_sessions.status': 'connected', 'stream_sessions.lease_owner': owner })
        .andWhere('accounts.blocked', true)
        .select('stream_sessions.id');
      return rows.map((row) => row.id);
    },

    /** Created sessions whose ticket has expired, and connected ones whose process stopped renewing the lease. */
    async abandoned(nowIso: string): Promise<StreamSessionRow[]> {
      return table()
        .where((q) => q.where({ status: 'created' }).andWhere('expires_at', '<=', nowIso))
        .orWhere((q) => q.where({ status: 'connected' }).andWhere('lease_expires_at', '<=', nowIso))
        .limit(100);
    },

    /**
     * Ended sessions whose reservation is still held: ending a session and settling its reservation are two steps, so
     * a process that stopped between them left these behind.
     */
    async endedWithActiveReservation(): Promise<StreamSessionRow[]> {
      return table()
        .join('reservations', 'reservations.id', 'stream_sessions.reservation_id')
        .whereIn('stream_sessions.status', ENDED)
        .andWhere('reservations.status', 'active')
        .select('stream_sessions.*')
        .limit(100);
    },

    /** Ended sessions whose task row (the one usage statistics count) is still `processing`, for the same reason. */
    async endedWithProcessingTask(): Promise<StreamSessionRow[]> {
      return table()
        .join('transcriptions', 'transcriptions.id', 'stream_sessions.id')
        .whereIn('stream_sessions.status', ENDED)
        .andWhere('transcriptions.status', 'processing')
        .andWhere('transcriptions.mode', 'stream')
        .select('stream_sessions.*')
        .limit(100);
    },
  };
}

export type StreamSessionStore = ReturnType<typeof createStreamSessionStore>;
