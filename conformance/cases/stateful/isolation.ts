// Scenario: another account's ids. A second throwaway account names the first one's task, webhook, key and v2 task
// in every operation that takes such an id; each must answer 404.
import type { RunContext } from '../../core/run-context.ts';
import type { Exchange } from '../../core/types.ts';
import { call, type Actor } from './steps.ts';

export interface ForeignIds {
  taskId?: string;
  webhookId?: string;
  keyId?: string;
  v2TaskId?: string;
}

export async function crossAccountIsolation(run: RunContext, stranger: Actor, ids: ForeignIds): Promise<void> {
  const attempts: Array<[string, string | undefined, unknown]> = [
    ['getTranscriptionStatus', ids.taskId, undefined],
    ['getTranscriptionResult', ids.taskId, undefined],
    ['cancelTranscription', ids.taskId, undefined],
    ['updateWebhook', ids.webhookId, { description: 'not yours' }],
    ['testWebhook', ids.webhookId, undefined],
    ['listWebhookDeliveries', ids.webhookId, undefined],
    ['deleteWebhook', ids.webhookId, undefined],
    ['revokeApiKey', ids.keyId, undefined],
    ['getV2Transcription', ids.v2TaskId, undefined],
  ];
  const probes: Exchange[] = [];
  for (const [operationId, id, body] of attempts) {
    if (!id) continue;
    const exchange = await call(run, stranger, operationId, {
      label: `${operationId} with a foreign id`,
      path: { id },
      body,
    });
    if (exchange) probes.push(exchange);
  }
  run.trace('cross_account_isolation', { probes }, 'stateful');
}
