// webhook_disable_conformance: an endpoint that answered a delivery with 410 Gone is disabled — the contract: "410
// disables the endpoint" — so the webhook list shows it with `enabled: false` and a `disabled_reason`. A server that
// keeps delivering to a gone endpoint (still enabled) fails.
import { registerCheck } from '../core/registry.ts';
import type { Exchange, Finding } from '../core/types.ts';

export interface WebhookDisableTrace {
  webhookId: string;
  /** The last webhook list read after the 410 (the suite reads until it changes or a timeout). */
  listed: Exchange;
}

interface Listed {
  data?: { id?: string; enabled?: unknown; disabled_reason?: unknown }[];
}

export function webhook_disable_conformance(trace: WebhookDisableTrace): Finding[] {
  const hook = (trace.listed.response.body as Listed | undefined)?.data?.find((w) => w.id === trace.webhookId);
  const fail = (message: string): Finding[] => [
    { title: 'A webhook that answered 410 is not disabled', message, severity: 'high', exchange: trace.listed },
  ];
  if (!hook) return fail(`webhook ${trace.webhookId} is not in the list`);
  if (hook.enabled !== false) return fail(`webhook ${trace.webhookId} is still enabled after a 410 answer`);
  if (typeof hook.disabled_reason !== 'string' || hook.disabled_reason === '')
    return fail(`webhook ${trace.webhookId} is disabled without a disabled_reason`);
  return [];
}

registerCheck('webhook_disable_conformance', 'trace', webhook_disable_conformance);
