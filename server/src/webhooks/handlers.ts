// Webhook endpoints: create (the `whsec_` secret is shown once; the URL passes the address guard), list, update
// (a new URL is checked again; disabling ends the pending event deliveries), delete (its deliveries go with it),
// test (enqueues a signed test event, 202 with the delivery record) and the delivery log.
import { randomUUID } from 'node:crypto';
import { now } from '../db/rows.ts';
import { errors } from '../http/api-error.ts';
import { accountOf, type HandlerGroup } from '../http/operation.ts';
import { toDelivery } from './deliveries.ts';
import type { WebhookDeliveryService } from './service.ts';
import { newWebhookSecret } from './signature.ts';
import { toWebhook, type WebhookRow } from './store.ts';
import { checkWebhookUrl } from './url-check.ts';

export function webhookHandlers(service: WebhookDeliveryService): HandlerGroup {
  const { store, deliveries, guard } = service;
  const existing = async (accountId: string, id: string): Promise<WebhookRow> => {
    const row = await store.find(accountId, id);
    if (!row) throw errors.notFound('id', 'webhook');
    return row;
  };
  return {
    createWebhook: async (request) => {
      await checkWebhookUrl(guard, request.body.url);
      const timestamp = now();
      const row: WebhookRow = {
        id: randomUUID(),
        account_id: accountOf(request).id,
        url: request.body.url,
        events: JSON.stringify(request.body.events),
        description: request.body.description ?? null,
        enabled: true,
        disabled_reason: null,
        secret: newWebhookSecret(),
        created_at: timestamp,
        updated_at: timestamp,
      };
      await store.insert(row);
      return { status: 201, body: { ...toWebhook(row), secret: row.secret } };
    },
    listWebhooks: async (request) => ({ status: 200, body: await store.list(accountOf(request).id, request.query) }),
    updateWebhook: async (request) => {
      const accountId = accountOf(request).id;
      await existing(accountId, request.path.id);
      const { url, events, description, enabled } = request.body;
      if (url !== undefined) await checkWebhookUrl(guard, url);
      await store.update(accountId, request.path.id, {
        ...(url === undefined ? {} : { url }),
        ...(events === undefined ? {} : { events: JSON.stringify(events) }),
        ...(description === undefined ? {} : { description }),
        // Re-enabling clears the reason a receiver's 410 left.
        ...(enabled === undefined ? {} : { enabled, disabled_reason: null }),
      });
      if (enabled === false)
        await deliveries.failPendingEvents(request.path.id, 'Not sent: the endpoint was disabled.');
      return { status: 200, body: toWebhook(await existing(accountId, request.path.id)) };
    },
    deleteWebhook: async (request) => {
      const accountId = accountOf(request).id;
      await existing(accountId, request.path.id);
      await store.delete(accountId, request.path.id);
      return { status: 200, body: { id: request.path.id, deleted: true } };
    },
    testWebhook: async (request) => {
      const webhook = await existing(accountOf(request).id, request.path.id);
      const delivery = await service.enqueueTest(webhook);
      return { status: 202, body: toDelivery(delivery) };
    },
    listWebhookDeliveries: async (request) => {
      await existing(accountOf(request).id, request.path.id);
      return { status: 200, body: await deliveries.list(request.path.id, request.query) };
    },
  };
}
