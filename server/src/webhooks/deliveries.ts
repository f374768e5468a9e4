// webhook_deliveries as a durable queue (the same shape as the transcription job queue): a delivery is due at
// `next_attempt_at`, and a dispatcher sends it only while it holds the delivery's lease (owner + expiry). Claiming
// is one UPDATE … RETURNING over the oldest due delivery; on PostgreSQL the candidate row is locked with SKIP LOCKED,
// so concurrent servers never take the same delivery, and SQLite has a single writer. Every outcome is written only
// by the lease holder and only over a `pending` row, so a delivery that a 410 or its owner ended meanwhile stays
// ended. Maps rows to the wire type `WebhookDelivery`.
import { randomUUID } from 'node:crypto';
import type { WebhookDelivery, WebhookEventType } from '../../../generated/client/types.gen.ts';
import type { Database } from '../db/database.ts';
import { databaseKind } from '../db/database.ts';
import { now, toBool, toIso, toIsoOrNull } from '../db/rows.ts';
import { paginate, type Page } from '../http/pagination.ts';

export interface DeliveryRow {
  id: string;
  webhook_id: string;
  event_id: string;
  event_type: WebhookEventType;
  task_id: string | null;
  test: boolean | number;
  payload: string;
  status: WebhookDelivery['status'];
  attempts: number;
  response_status: number | null;
  last_error: string | null;
  next_attempt_at: string | Date | null;
  lease_owner: string | null;
  lease_expires_at: string | Date | null;
  created_at: string | Date;
  completed_at: string | Date | null;
}

export interface AttemptRow {
  id: string;
  delivery_id: string;
  number: number;
  started_at: string | Date;
  duration_ms: number;
  response_status: number | null;
  error: string | null;
}

export const toDelivery = (row: DeliveryRow): WebhookDelivery => ({
  id: row.id,
  webhook_id: row.webhook_id,
  event_id: row.event_id,
  event_type: row.event_type,
  status: row.status,
  attempts: Number(row.attempts),
  response_status: row.response_status === null ? null : Number(row.response_status),
  last_error: row.last_error,
  next_attempt_at: row.status === 'pending' ? toIsoOrNull(row.next_attempt_at) : null,
  created_at: toIso(row.created_at),
  completed_at: toIsoOrNull(row.completed_at),
});

/** A new pending delivery, due now. */
export function newDelivery(fields: {
  webhookId: string;
  eventId: string;
  eventType: WebhookEventType;
  taskId: string | null;
  payload: string;
  at: string;
}): DeliveryRow {
  return {
    id: randomUUID(),
    webhook_id: fields.webhookId,
    event_id: fields.eventId,
    event_type: fields.eventType,
    task_id: fields.taskId,
    test: fields.taskId === null,
    payload: fields.payload,
    status: 'pending',
    attempts: 0,
    response_status: null,
    last_error: null,
    next_attempt_at: fields.at,
    lease_owner: null,
    lease_expires_at: null,
    created_at: fields.at,
    completed_at: null,
  };
}

/** The result of one attempt, as the dispatcher records it. */
export interface AttemptRecord {
  startedAt: string;
  durationMs: number;
  responseStatus: number | null;
  error: string | null;
}

const attemptRow = (delivery: DeliveryRow, record: AttemptRecord): AttemptRow => ({
  id: randomUUID(),
  delivery_id: delivery.id,
  number: Number(delivery.attempts) + 1,
  started_at: record.startedAt,
  duration_ms: Math.round(record.durationMs),
  response_status: record.responseStatus,
  error: record.error,
});

/** Logs one attempt and moves the held delivery to its outcome (in the caller's transaction). */
async function recordAttempt(
  trx: Database,
  delivery: DeliveryRow,
  owner: string,
  record: AttemptRecord,
  outcome: {
    status: WebhookDelivery['status'];
    lastError: string | null;
    nextAttemptAt: string | null;
    completedAt: string | null;
  },
): Promise<void> {
  await trx('webhook_attempts').insert(attemptRow(delivery, record));
  await trx('webhook_deliveries')
    .where({ id: delivery.id, lease_owner: owner, status: 'pending' })
    .update({
      status: outcome.status,
      attempts: Number(delivery.attempts) + 1,
      response_status: record.responseStatus,
      last_error: outcome.lastError,
      next_attempt_at: outcome.nextAttemptAt,
      completed_at: outcome.completedAt,
      lease_owner: null,
      lease_expires_at: null,
    });
}

export function createDeliveryStore(db: Database, options: { leaseMs: number; perEndpoint: number }) {
  const postgres = databaseKind(db) === 'postgres';
  const rowsOf = <T>(result: unknown): T[] => (Array.isArray(result) ? result : (result as { rows: T[] }).rows);
  const held = (id: string, owner: string) =>
    db('webhook_deliveries').where({ id, lease_owner: owner, status: 'pending' });

  return {
    /**
     * Stores deliveries; one per task, type and endpoint (a repeated report of the same final state adds none). In
     * the caller's transaction when given one, so that other writes commit with them.
     */
    async insert(rows: DeliveryRow[], trx: Database = db): Promise<void> {
      if (rows.length === 0) return;
      await trx('webhook_deliveries').insert(rows).onConflict(['webhook_id', 'task_id', 'event_type']).ignore();
    },

    async get(id: string): Promise<DeliveryRow | undefined> {
      return db<DeliveryRow>('webhook_deliveries').where({ id }).first();
    },

    async list(webhookId: string, options: { limit?: number; after?: string }): Promise<Page<WebhookDelivery>> {
      return paginate<DeliveryRow, WebhookDelivery>(
        db('webhook_deliveries').where({ webhook_id: webhookId }),
        options,
        toIso,
        toDelivery,
      );
    },

    async attempts(deliveryId: string): Promise<AttemptRow[]> {
      return db<AttemptRow>('webhook_attempts').where({ delivery_id: deliveryId }).orderBy('number');
    },

    /**
     * Takes a due delivery whose lease is free or expired, or undefined when there is none. Fair across accounts and
     * bounded per endpoint: an endpoint with `perEndpoint` attempts in flight (any process) is skipped, and among the
     * rest the account with the fewest attempts in flight goes first, then the oldest due. A receiver that hangs thus
     * holds at most `perEndpoint` of the dispatchers' slots, and another account's delivery is taken by the next free
     * slot however long the first account's backlog is.
     */
    async claim(owner: string): Promise<DeliveryRow | undefined> {
      const at = new Date().toISOString();
      const expiry = new Date(Date.now() + options.leaseMs).toISOString();
      const candidate = `SELECT d.id FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
        WHERE d.status = 'pending' AND d.next_attempt_at <= ?
          AND (d.lease_expires_at IS NULL OR d.lease_expires_at < ?)
          AND (SELECT COUNT(*) FROM webhook_deliveries f
            WHERE f.webhook_id = d.webhook_id AND f.status = 'pending' AND f.lease_expires_at >= ?) < ?
        ORDER BY (SELECT COUNT(*) FROM webhook_deliveries f JOIN webhooks fw ON fw.id = f.webhook_id
            WHERE fw.account_id = w.account_id AND f.status = 'pending' AND f.lease_expires_at >= ?),
          d.next_attempt_at, d.id
        LIMIT 1${postgres ? ' FOR UPDATE OF d SKIP LOCKED' : ''}`;
      const sql = `UPDATE webhook_deliveries SET lease_owner = ?, lease_expires_at = ?
        WHERE id = (${candidate}) AND status = 'pending' AND (lease_expires_at IS NULL OR lease_expires_at < ?)
        RETURNING *`;
      return rowsOf<DeliveryRow>(await db.raw(sql, [owner, expiry, at, at, at, options.perEndpoint, at, at]))[0];
    },

    /**
     * An endpoint did not answer in time: its other due deliveries wait `delayMs` (not counted as attempts), so a
     * receiver that hangs is tried one delivery at a time, not with its whole backlog one timeout after another.
     */
    async backOff(webhookId: string, delayMs: number): Promise<void> {
      const at = new Date().toISOString();
      await db('webhook_deliveries')
        .where({ webhook_id: webhookId, status: 'pending' })
        .andWhere('next_attempt_at', '<', new Date(Date.now() + delayMs).toISOString())
        .andWhere((q) => q.whereNull('lease_expires_at').orWhere('lease_expires_at', '<', at))
        .update({ next_attempt_at: new Date(Date.now() + delayMs).toISOString() });
    },

    /** Whether a free pending delivery has waited unsent for more than `lateMs` past its due time. */
    async lateBy(lateMs: number): Promise<boolean> {
      const now = Date.now();
      const row = await db('webhook_deliveries')
        .where({ status: 'pending' })
        .andWhere('next_attempt_at', '<', new Date(now - lateMs).toISOString())
        .andWhere((q) => q.whereNull('lease_expires_at').orWhere('lease_expires_at', '<', new Date(now).toISOString()))
        .first('id');
      return row !== undefined;
    },

    /** When the next free pending delivery is due (epoch ms), or undefined when none is. */
    async nextDue(): Promise<number | undefined> {
      const at = new Date().toISOString();
      const row = (await db('webhook_deliveries')
        .where({ status: 'pending' })
        .andWhere((q) => q.whereNull('lease_expires_at').orWhere('lease_expires_at', '<', at))
        .min({ due: 'next_attempt_at' })
        .first()) as { due: string | Date | null } | undefined;
      return row?.due ? Date.parse(toIso(row.due)) : undefined;
    },

    /** Gives a held delivery back untouched (the attempt was cut short by a shutdown); it is due again at once. */
    async release(id: string, owner: string): Promise<void> {
      await held(id, owner).update({ lease_owner: null, lease_expires_at: null });
    },

    /** Logs an attempt and ends the delivery as `succeeded`. */
    async succeeded(delivery: DeliveryRow, owner: string, record: AttemptRecord): Promise<void> {
      await db.transaction(async (trx) => {
        await recordAttempt(trx, delivery, owner, record, {
          status: 'succeeded',
          lastError: null,
          nextAttemptAt: null,
          completedAt: now(),
        });
      });
    },

    /**
     * Logs a failed attempt: the delivery is due again at `retryAt`, or ends as `failed` when no retry is left
     * (`retryAt` undefined).
     */
    async attemptFailed(
      delivery: DeliveryRow,
      owner: string,
      record: AttemptRecord,
      retryAt: string | undefined,
    ): Promise<void> {
      await db.transaction(async (trx) => {
        await recordAttempt(trx, delivery, owner, record, {
          status: retryAt ? 'pending' : 'failed',
          lastError: record.error,
          nextAttemptAt: retryAt ?? null,
          completedAt: retryAt ? null : now(),
        });
      });
    },

    /**
     * The receiver answered 410 Gone: logs the attempt, disables the endpoint with a reason and ends every pending
     * delivery to it (this one included) as `failed`.
     */
    async gone(delivery: DeliveryRow, owner: string, record: AttemptRecord, reason: string): Promise<void> {
      const at = now();
      await db.transaction(async (trx) => {
        await recordAttempt(trx, delivery, owner, record, {
          status: 'failed',
          lastError: record.error,
          nextAttemptAt: null,
          completedAt: at,
        });
        await trx('webhooks')
          .where({ id: delivery.webhook_id })
          .update({ enabled: false, disabled_reason: reason, updated_at: at });
        await trx('webhook_deliveries')
          .where({ webhook_id: delivery.webhook_id, status: 'pending' })
          .update({
            status: 'failed',
            last_error: `Not sent: ${reason}`,
            next_attempt_at: null,
            completed_at: at,
            lease_owner: null,
            lease_expires_at: null,
          });
      });
    },

    /** Ends a held delivery as `failed` without an attempt (its endpoint was disabled before it was sent). */
    async abandon(delivery: DeliveryRow, owner: string, reason: string): Promise<void> {
      await held(delivery.id, owner).update({
        status: 'failed',
        last_error: reason,
        next_attempt_at: null,
        completed_at: now(),
        lease_owner: null,
        lease_expires_at: null,
      });
    },

    /** Ends the pending real-event deliveries of an endpoint as `failed` (its owner disabled it); test events stay. */
    async failPendingEvents(webhookId: string, reason: string): Promise<void> {
      await db('webhook_deliveries').where({ webhook_id: webhookId, status: 'pending', test: false }).update({
        status: 'failed',
        last_error: reason,
        next_attempt_at: null,
        completed_at: now(),
        lease_owner: null,
        lease_expires_at: null,
      });
    },
  };
}

export type DeliveryStore = ReturnType<typeof createDeliveryStore>;

export const isTest = (row: DeliveryRow): boolean => toBool(row.test);
