// webhooks table: endpoint registrations; maps rows to the wire type `Webhook` (events are a JSON column).
import type { Webhook, WebhookEventType } from '../../../generated/client/types.gen.ts';
import type { Database } from '../db/database.ts';
import { now, parseJson, toBool, toIso } from '../db/rows.ts';
import { paginate, type Page } from '../http/pagination.ts';

export interface WebhookRow {
  id: string;
  account_id: string;
  url: string;
  events: string;
  description: string | null;
  enabled: boolean | number;
  disabled_reason: string | null;
  secret: string;
  created_at: string | Date;
  updated_at: string | Date;
}

export const toWebhook = (row: WebhookRow): Webhook => ({
  id: row.id,
  url: row.url,
  events: parseJson<WebhookEventType[]>(row.events) ?? [],
  description: row.description,
  enabled: toBool(row.enabled),
  disabled_reason: row.disabled_reason,
  created_at: toIso(row.created_at),
  updated_at: toIso(row.updated_at),
});

export function createWebhookStore(db: Database) {
  return {
    async insert(row: WebhookRow): Promise<void> {
      await db('webhooks').insert(row);
    },
    /** Any account's endpoint (the dispatcher). */
    async get(id: string): Promise<WebhookRow | undefined> {
      return db<WebhookRow>('webhooks').where({ id }).first();
    },
    /** The account's endpoints (enabled or not), to match an event against their subscriptions. */
    async ofAccount(accountId: string): Promise<WebhookRow[]> {
      return db<WebhookRow>('webhooks').where({ account_id: accountId });
    },
    async find(accountId: string, id: string): Promise<WebhookRow | undefined> {
      return db<WebhookRow>('webhooks').where({ account_id: accountId, id }).first();
    },
    async list(accountId: string, options: { limit?: number; after?: string }): Promise<Page<Webhook>> {
      return paginate<WebhookRow, Webhook>(db('webhooks').where({ account_id: accountId }), options, toIso, toWebhook);
    },
    async update(accountId: string, id: string, changes: Partial<WebhookRow>): Promise<void> {
      await db('webhooks')
        .where({ account_id: accountId, id })
        .update({ ...changes, updated_at: now() });
    },
    async delete(accountId: string, id: string): Promise<void> {
      await db('webhooks').where({ account_id: accountId, id }).delete();
    },
  };
}

export type WebhookStore = ReturnType<typeof createWebhookStore>;
