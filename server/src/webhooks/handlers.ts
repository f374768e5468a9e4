// Webhook endpoint registration: create (the `whsec_` secret is shown once), list, update, delete. Delivery, the
// delivery log and test events arrive with the transcription pipeline.
import { randomBytes, randomUUID } from 'node:crypto';
import { now } from '../db/rows.ts';
import { errors } from '../http/api-error.ts';
import { accountOf, type HandlerGroup } from '../http/operation.ts';
import { toWebhook, type WebhookRow, type WebhookStore } from './store.ts';

export const newWebhookSecret = (): string => `whsec_${randomBytes(24).toString('base64')}`;

export function webhookHandlers(store: WebhookStore): HandlerGroup {
  const existing = async (accountId: string, id: string): Promise<WebhookRow> => {
    const row = await store.find(accountId, id);
    if (!row) throw errors.notFound('id', 'webhook');
    return row;
  };
  return {
    createWebhook: async (request) => {
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
      await store.update(accountId, request.path.id, {
        ...(url === undefined ? {} : { url }),
        ...(events === undefined ? {} : { events: JSON.stringify(events) }),
        ...(description === undefined ? {} : { description }),
        // Re-enabling clears the reason a receiver's 410 left.
        ...(enabled === undefined ? {} : { enabled, disabled_reason: null }),
      });
      return { status: 200, body: toWebhook(await existing(accountId, request.path.id)) };
    },
    deleteWebhook: async (request) => {
      const accountId = accountOf(request).id;
      await existing(accountId, request.path.id);
      await store.delete(accountId, request.path.id);
      return { status: 200, body: { id: request.path.id, deleted: true } };
    },
  };
}
