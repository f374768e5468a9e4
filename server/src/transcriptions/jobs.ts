// The durable job queue: transcription tasks are the jobs, and a worker works on a task only while it holds the
// task's lease (owner + expiry, renewed by a heartbeat). Claiming is one UPDATE … RETURNING over the next claimable
// task (`lightning` before `queue`, then the account with the fewest tasks being worked on, then the oldest); on
// PostgreSQL the candidate row is locked with SKIP LOCKED so concurrent servers never take the same task, and SQLite
// has a single writer. A worker that dies stops renewing, its lease expires, and the next claim (by any process,
// including the restarted server) resumes the task from the state it was left in.
import type { Database } from '../db/database.ts';
import { databaseKind } from '../db/database.ts';
import type { TranscriptionRow } from './store.ts';

export type JobRow = TranscriptionRow & {
  source_url: string | null;
  /**
   * The original's file name in the task's folder (task-files.ts), the same in every process; rows written by
   * earlier versions hold an absolute path there.
   */
  media_path: string | null;
  reservation_id: string | null;
  terms: string | null;
  lease_owner: string | null;
  lease_expires_at: string | Date | null;
  attempts: number;
  event_pending: boolean | number;
};

/** Unfinished states: a task in one of these is still owed a final state. */
export const UNFINISHED = ['created', 'downloading', 'ready', 'processing'] as const;

export function createJobQueue(db: Database, options: { leaseMs: number }) {
  const postgres = databaseKind(db) === 'postgres';
  const expiry = () => new Date(Date.now() + options.leaseMs).toISOString();

  return {
    /** Takes the next task whose lease is free or expired, or undefined when there is none. */
    async claim(owner: string): Promise<JobRow | undefined> {
      const at = new Date().toISOString();
      // Within a priority, the account with the fewest tasks being worked on (a live lease) goes first, then the
      // oldest task: an account's backlog of queued tasks takes turns with other accounts' tasks instead of filling
      // every slot before a newer account's task is claimed.
      const candidate = `SELECT t.id FROM transcriptions t
        WHERE t.mode IN ('sync', 'async') AND t.status IN ('created', 'downloading', 'ready', 'processing')
          AND (t.lease_expires_at IS NULL OR t.lease_expires_at < ?)
        ORDER BY CASE t.priority WHEN 'lightning' THEN 0 ELSE 1 END,
          (SELECT COUNT(*) FROM transcriptions r
            WHERE r.account_id = t.account_id AND r.mode IN ('sync', 'async')
              AND r.status IN ('created', 'downloading', 'ready', 'processing') AND r.lease_expires_at >= ?),
          t.created_at, t.id
        LIMIT 1${postgres ? ' FOR UPDATE OF t SKIP LOCKED' : ''}`;
      const sql = `UPDATE transcriptions SET lease_owner = ?, lease_expires_at = ?, attempts = attempts + 1
        WHERE id = (${candidate}) AND (lease_expires_at IS NULL OR lease_expires_at < ?)
        RETURNING *`;
      const result = (await db.raw(sql, [owner, expiry(), at, at, at])) as JobRow[] | { rows: JobRow[] };
      const rows = Array.isArray(result) ? result : result.rows;
      return rows[0];
    },

    /**
     * Extends the lease; false when this owner no longer holds it (taken over after an expiry) or the task is no
     * longer unfinished (cancelled), so the heartbeat also tells a worker to stop.
     */
    async renew(id: string, owner: string): Promise<boolean> {
      const updated = await db('transcriptions')
        .where({ id, lease_owner: owner })
        .whereIn('status', [...UNFINISHED])
        .update({ lease_expires_at: expiry() });
      return updated > 0;
    },

    /** Lets go of a task (after a final state, or to hand it back). */
    async release(id: string, owner: string): Promise<void> {
      await db('transcriptions')
        .where({ id, lease_owner: owner })
        .update({ lease_owner: null, lease_expires_at: null });
    },

    /**
     * Gives an unfinished task back after a failure of the database or the disk: not counted as an attempt (the task
     * did nothing wrong), and not taken again by anyone before `delayMs`, so a full disk is not retried in a loop.
     */
    async postpone(id: string, owner: string, delayMs: number): Promise<void> {
      await db('transcriptions')
        .where({ id, lease_owner: owner })
        .whereIn('status', [...UNFINISHED])
        .update({
          lease_owner: null,
          lease_expires_at: new Date(Date.now() + delayMs).toISOString(),
          attempts: db.raw('attempts - 1'),
        });
    },

    /**
     * Gives an unfinished task back because this process is shutting down: the claim is not counted as an attempt,
     * so rolling restarts during a long task never make it reach MAX_ATTEMPTS (only a worker that dies counts).
     */
    async handBack(id: string, owner: string): Promise<void> {
      await db('transcriptions')
        .where({ id, lease_owner: owner })
        .whereIn('status', [...UNFINISHED])
        .update({ lease_owner: null, lease_expires_at: null, attempts: db.raw('attempts - 1') });
    },

    /**
     * Moves a held task from one state to the next with more columns; false when the task is no longer in `from`
     * (cancelled meanwhile) or no longer held by this owner.
     */
    async advance(
      id: string,
      owner: string,
      from: TranscriptionRow['status'] | TranscriptionRow['status'][],
      changes: Partial<JobRow>,
    ): Promise<boolean> {
      const states = Array.isArray(from) ? from : [from];
      const updated = await db('transcriptions')
        .where({ id, lease_owner: owner })
        .whereIn('status', states)
        .update(changes);
      return updated > 0;
    },

    /** Cancels a task that is in one of `from` (whoever holds it); false when it is not. */
    async cancel(id: string, from: TranscriptionRow['status'][], at: string): Promise<boolean> {
      const updated = await db('transcriptions')
        .where({ id })
        .whereIn('status', from)
        .update({ status: 'cancelled', completed_at: at });
      return updated > 0;
    },

    async get(id: string): Promise<JobRow | undefined> {
      return db<JobRow>('transcriptions').where({ id }).first();
    },
  };
}

export type JobQueue = ReturnType<typeof createJobQueue>;
