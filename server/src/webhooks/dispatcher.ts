// The webhook dispatcher of one server process: a few loops, each claiming the next due delivery from the durable
// queue (webhook_deliveries), making one signed attempt under the delivery's lease and recording the outcome — 2xx
// succeeded, 410 disables the endpoint, anything else is retried on the configured schedule until it runs out.
// Idle loops sleep until the next delivery is due, the poll interval passes (deliveries of other processes) or this
// process enqueues one (`wake`). Sending never happens inside an HTTP request. Stopping interrupts the attempts in
// flight and gives their leases back unrecorded, so the next process sends them again with the same webhook-id.
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { createPollingLoops } from '../background/polling-loops.ts';
import type { WebhookConfig } from '../config.ts';
import { toBool } from '../db/rows.ts';
import type { AddressGuard } from '../media/address-guard.ts';
import { isTest, type DeliveryRow, type DeliveryStore } from './deliveries.ts';
import { sendAttempt, type SendOutcome } from './sender.ts';
import { webhookHeaders } from './signature.ts';
import type { WebhookStore } from './store.ts';

/** The shortest idle sleep, so a due delivery that another process holds locked is not polled in a busy loop. */
const MIN_SLEEP_MS = 25;

export const GONE_REASON = 'The receiver answered 410 Gone.';

export interface DispatcherDeps {
  deliveries: DeliveryStore;
  webhooks: WebhookStore;
  guard: AddressGuard;
  config: WebhookConfig;
  logger: Logger;
}

export function createDispatcher(deps: DispatcherDeps) {
  const { deliveries, webhooks, guard, config, logger } = deps;
  const owner = `webhooks-${randomUUID()}`;
  const inFlight = new Set<AbortController>();
  const loops = createPollingLoops({
    count: config.concurrency,
    pollMs: config.pollMs,
    name: 'webhook dispatcher',
    logger,
  });

  async function idle(): Promise<void> {
    const due = await deliveries.nextDue();
    const wait = due === undefined ? config.pollMs : Math.min(config.pollMs, due - Date.now());
    await loops.sleep(Math.max(MIN_SLEEP_MS, wait));
  }

  /** The next attempt's due time after `made` attempts, or undefined when the schedule is used up. */
  function retryAt(made: number): string | undefined {
    const delay = config.schedule[made - 1];
    return delay === undefined ? undefined : new Date(Date.now() + delay * 1000).toISOString();
  }

  async function attempt(delivery: DeliveryRow): Promise<void> {
    const webhook = await webhooks.get(delivery.webhook_id);
    if (!webhook) return; // deleted meanwhile: its deliveries went with it
    if (!toBool(webhook.enabled) && !isTest(delivery)) {
      await deliveries.abandon(delivery, owner, 'Not sent: the endpoint is disabled.');
      return;
    }
    const startedAt = new Date().toISOString();
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = webhookHeaders(webhook.secret, delivery.event_id, timestamp, delivery.payload);
    const controller = new AbortController();
    inFlight.add(controller);
    let outcome: SendOutcome;
    try {
      outcome = await sendAttempt(webhook.url, headers, delivery.payload, {
        guard,
        timeoutMs: config.timeoutMs,
        signal: controller.signal,
      });
    } finally {
      inFlight.delete(controller);
    }
    if (outcome.aborted) {
      await deliveries.release(delivery.id, owner);
      return;
    }
    const made = Number(delivery.attempts) + 1;
    const record = {
      startedAt,
      durationMs: outcome.durationMs,
      responseStatus: outcome.status,
      error: outcome.error,
    };
    const log = {
      deliveryId: delivery.id,
      webhookId: delivery.webhook_id,
      eventId: delivery.event_id,
      eventType: delivery.event_type,
      attempt: made,
      status: outcome.status,
      durationMs: Math.round(outcome.durationMs),
      error: outcome.error,
      ...(outcome.refusalDetail ? { refusal: outcome.refusalDetail } : {}),
    };
    if (outcome.status !== null && outcome.status >= 200 && outcome.status < 300) {
      await deliveries.succeeded(delivery, owner, record);
      logger.info(log, 'webhook delivered');
    } else if (outcome.status === 410) {
      await deliveries.gone(delivery, owner, record, GONE_REASON);
      logger.warn(log, 'webhook endpoint answered 410 Gone; endpoint disabled');
    } else {
      const next = retryAt(made);
      await deliveries.attemptFailed(delivery, owner, record, next);
      if (outcome.timedOut && config.timeoutBackoffMs > 0) {
        await deliveries.backOff(delivery.webhook_id, config.timeoutBackoffMs);
      }
      logger.warn({ ...log, nextAttemptAt: next ?? null }, next ? 'webhook attempt failed' : 'webhook delivery failed');
    }
  }

  async function work(): Promise<void> {
    const delivery = await deliveries.claim(owner);
    if (!delivery) return idle();
    try {
      await attempt(delivery);
    } catch (err) {
      // The outcome could not be written: the lease expires and the attempt is made again.
      logger.error({ err, deliveryId: delivery.id }, 'webhook attempt could not be recorded');
    }
  }

  return {
    owner,
    start(): void {
      loops.start(work);
    },
    /** A delivery was enqueued by this process: idle loops look now instead of at the next poll. */
    wake(): void {
      loops.wakeAll();
    },
    async stop(): Promise<void> {
      await loops.stop(() => {
        for (const controller of inFlight) controller.abort();
      });
    },
  };
}

export type Dispatcher = ReturnType<typeof createDispatcher>;
