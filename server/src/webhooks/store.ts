// webhooks table: endpoint registrations; maps rows to the wire type `Webhook` (events are a JSON column).
import type { Webhook, WebhookEventType } from '../../../generated/client/types.gen.ts';
import type { Database } from '../db/database.ts';
import { now, parseJson, toBool, toIso } from '../db/rows.ts';
import { paginate, type Page } from '../http/pagination.ts';
import { openWith, seal, type SecretKeys } from '../secrets/secret-box.ts';

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

/** Marks a signing secret sealed with the server key; rows written before sealing hold the secret itself. */
const SEALED = 'sealed:';

/**
 * Endpoints with their signing secrets sealed at rest with the server key (the AES-256-GCM box of the v2 secrets):
 * rows are written sealed and read back opened, so the rest of the feature sees the `whsec_` secret.
 */
export function createWebhookStore(db: Database, secretKeys: SecretKeys) {
  const opened = (row: WebhookRow | undefined): WebhookRow | undefined =>
    row && row.secret.startsWith(SEALED)
      ? { ...row, secret: openWith(secretKeys, row.secret.slice(SEALED.length)) }
      : row;
  return {
    async insert(row: WebhookRow): Promise<void> {
      await db('webhooks').insert({ ...row, secret: `${SEALED}${seal(secretKeys.current, row.secret)}` });
    },
    /** Seals the secrets of rows written before secrets were sealed (run at start); returns how many. */
    async sealPlaintextSecrets(): Promise<number> {
      const plain = await db<WebhookRow>('webhooks').whereNot('secret', 'like', `${SEALED}%`).select('id', 'secret');
      for (const { id, secret } of plain) {
        await db('webhooks')
          .where({ id, secret })
          .update({ secret: `${SEALED}${seal(secretKeys.current, secret)}` });
      }
      return plain.length;
    },
    /** Any account's endpoint (the dispatcher). */
    async get(id: string): Promise<WebhookRow | undefined> {
      return opened(await db<WebhookRow>('webhooks').where({ id }).first());
    },
    /** The account's endpoints (enabled or not), to match an event against their subscriptions. */
    async ofAccount(accountId: string): Promise<WebhookRow[]> {
      return (await db<WebhookRow>('webhooks').where({ account_id: accountId })).map((row) => opened(row)!);
    },
    async find(accountId: string, id: string): Promise<WebhookRow | undefined> {
      return opened(await db<WebhookRow>('webhooks').where({ account_id: accountId, id }).first());
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
