// Webhook delivery as one unit for the composition root: enqueueing the event of a task that reached a final state
// (one delivery per enabled endpoint of the task's account subscribed to the event type, written to the database
// before the call returns, one event id shared by those endpoints and kept across retries), enqueueing test events,
// and the background dispatcher that sends them.
import { createHash, randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { WebhookEventType } from '../../../generated/client/types.gen.ts';
import type { WebhookConfig } from '../config.ts';
import type { Database } from '../db/database.ts';
import { now, parseJson, toBool } from '../db/rows.ts';
import type { AddressGuard } from '../media/address-guard.ts';
import type { JobRow } from '../transcriptions/jobs.ts';
import { createDeliveryStore, newDelivery, type DeliveryRow, type DeliveryStore } from './deliveries.ts';
import { createDispatcher } from './dispatcher.ts';
import { eventTypeOf, taskEvent, testEvent } from './events.ts';
import { createWebhookStore, type WebhookRow, type WebhookStore } from './store.ts';
import type { SecretKeys } from '../secrets/secret-box.ts';

/** How long a claimed delivery stays with its dispatcher beyond the attempt's own time limit. */
const LEASE_MARGIN_MS = 30_000;

export interface WebhookDeliveryDeps {
  db: Database;
  config: WebhookConfig;
  guard: AddressGuard;
  logger: Logger;
  /** Seals the endpoints' signing secrets at rest. */
  secretKeys: SecretKeys;
}

export interface WebhookDeliveryService {
  store: WebhookStore;
  deliveries: DeliveryStore;
  guard: AddressGuard;
  /** The pipeline's `onFinal`: enqueues the task's event; never throws (a failure is logged). */
  onFinal(task: JobRow): Promise<void>;
  /** Whether deliveries wait unsent long past their due time (for /health). */
  backlogLate(): Promise<boolean>;
  /** Enqueues a test event to one endpoint (enabled or not) and returns its delivery. */
  enqueueTest(webhook: WebhookRow): Promise<DeliveryRow>;
  start(): void;
  stop(): Promise<void>;
}

/**
 * The event id of a task's final event: derived from the task (a name-based UUID), so an event handed over again
 * after a crash (the sweep) gets the same id and the same rows (the queue ignores duplicates).
 */
function eventIdOf(taskId: string, type: string): string {
  const hex = createHash('sha256').update(`${taskId}:${type}`).digest('hex');
  const variant = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** How often finished tasks whose event was never handed over (a crash in between) are looked for. */
const SWEEP_INTERVAL_MS = 30_000;
/** A task finished this recently is left to its own worker, which is about to hand the event over. */
const SWEEP_GRACE_MS = 5_000;

/** How late a due delivery may be before /health reports the backlog. */
const BACKLOG_LATE_MS = 60_000;

export function createWebhookDelivery(deps: WebhookDeliveryDeps): WebhookDeliveryService {
  const { db, config, guard, logger } = deps;
  let sweeper: NodeJS.Timeout | undefined;

  /** Hands over the events of tasks that reached a final state while their process died before it could. */
  async function sweep(): Promise<void> {
    try {
      const before = new Date(Date.now() - SWEEP_GRACE_MS).toISOString();
      const pending = (await db('transcriptions')
        .where({ event_pending: true })
        .whereIn('status', ['completed', 'failed', 'cancelled'])
        .andWhere('completed_at', '<', before)
        .limit(100)) as JobRow[];
      for (const task of pending) await onFinal(task);
    } catch (err) {
      logger.error({ err }, 'webhook event sweep failed; it runs again later');
    }
  }
  const store = createWebhookStore(db, deps.secretKeys);
  const deliveries = createDeliveryStore(db, {
    leaseMs: config.timeoutMs + LEASE_MARGIN_MS,
    perEndpoint: config.perEndpoint,
  });
  const dispatcher = createDispatcher({ deliveries, webhooks: store, guard, config, logger });

  /** The deliveries of a task's final event: one per enabled endpoint of its account subscribed to the event type. */
  async function deliveriesOf(task: JobRow): Promise<DeliveryRow[]> {
    const type = eventTypeOf(task.status);
    if (!type) return [];
    const endpoints = (await store.ofAccount(task.account_id)).filter(
      (webhook) => toBool(webhook.enabled) && (parseJson<WebhookEventType[]>(webhook.events) ?? []).includes(type),
    );
    if (endpoints.length === 0) return [];
    const eventId = eventIdOf(task.id, type);
    const payload = JSON.stringify(taskEvent(eventId, type, task));
    const at = now();
    return endpoints.map((webhook) =>
      newDelivery({ webhookId: webhook.id, eventId, eventType: type, taskId: task.id, payload, at }),
    );
  }

  /**
   * Hands the event over: the deliveries and the cleared `event_pending` commit together, so that a reader who sees
   * the flag cleared sees the deliveries, and a crash before the commit leaves the flag for the sweep. The dispatcher
   * is woken after the commit, so it never sends an event whose hand-over could still roll back. A task with no
   * endpoint to send to (most tasks) only clears its flag, without a transaction.
   */
  async function onFinal(task: JobRow): Promise<void> {
    try {
      const rows = await deliveriesOf(task);
      const clearFlag = (executor: Database) =>
        executor('transcriptions').where({ id: task.id }).update({ event_pending: false });
      if (rows.length === 0) {
        await clearFlag(db);
        return;
      }
      await db.transaction(async (trx) => {
        await deliveries.insert(rows, trx);
        await clearFlag(trx);
      });
      dispatcher.wake();
    } catch (err) {
      logger.error({ err, taskId: task.id }, 'the webhook event of a finished task could not be enqueued');
    }
  }

  return {
    store,
    deliveries,
    guard,
    onFinal,
    backlogLate: () => deliveries.lateBy(BACKLOG_LATE_MS),
    async enqueueTest(webhook) {
      const type = (parseJson<WebhookEventType[]>(webhook.events) ?? [])[0] ?? 'transcription.completed';
      const eventId = randomUUID();
      const at = now();
      const row = newDelivery({
        webhookId: webhook.id,
        eventId,
        eventType: type,
        taskId: null,
        payload: JSON.stringify(testEvent(eventId, type, at)),
        at,
      });
      await deliveries.insert([row]);
      dispatcher.wake();
      return row;
    },
    start: () => {
      dispatcher.start();
      void sweep();
      sweeper = setInterval(() => void sweep(), SWEEP_INTERVAL_MS);
    },
    stop: async () => {
      clearInterval(sweeper);
      await dispatcher.stop();
    },
  };
}
