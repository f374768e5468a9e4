// Phase "stateful": scenarios that follow the document's links and the task lifecycle against real state. With an
// admin token each scenario gets its own throwaway account (so they run side by side, each under its own rate
// limit) and the account-state scenarios run; without one, the main credentials are used and those are not run.
// The v2 free-chat scenario runs when GET /v3/models lists an available chat model; `--slow` adds slow.ts alongside.
import type { RunContext } from '../core/run-context.ts';
import { blockedAccount, emptyBalance, keyLimit, rateLimit } from './stateful/account-states.ts';
import { keyRevocation, webhookDeletion } from './stateful/deletions.ts';
import { idempotentCreate } from './stateful/idempotency.ts';
import { crossAccountIsolation } from './stateful/isolation.ts';
import { linkAndCancel } from './stateful/link-and-cancel.ts';
import { concurrentJobs, goneWebhook, noOverspend } from './stateful/limits.ts';
import { absentModel, linkOutcomes, priceOrder, undecodableUpload, unsupportedLanguage } from './stateful/outcomes.ts';
import { runSlow } from './slow.ts';
import { v2ChatNotReady, v2FreeQuota } from './stateful/v2-chat.ts';
import { startReceiver } from './stateful/receiver.ts';
import { streamReservation } from './stateful/stream-reservation.ts';
import { syncCreateDefaultLanguage, syncCreateLinks } from './stateful/sync-create.ts';
import type { Actor } from './stateful/steps.ts';
import { bodyOf, call } from './stateful/steps.ts';
import { transcriptionLifecycle } from './stateful/transcription-lifecycle.ts';
import { v2Lifecycle } from './stateful/v2-lifecycle.ts';
import { documentedModels } from './stateful/documented-models.ts';
import { issuedKeyPair } from './stateful/key-pairs.ts';
import { v2QuoteLeavesNoRecord } from './stateful/v2-quote.ts';

async function chatModelListed(run: RunContext, actor: Actor): Promise<boolean> {
  const models = bodyOf<{ data?: { type?: string; status?: string }[] }>(
    await call(run, actor, 'listModels', { label: 'which chat models are available' }),
  );
  return (models?.data ?? []).some((m) => m.type === 'chat' && m.status === 'available');
}

export async function runStateful(run: RunContext): Promise<void> {
  const provision = run.accounts.provision;
  const actor = async (label: string, balance = 100): Promise<Actor> =>
    provision ? provision(balance, label) : run.accounts.main;
  const receiver = await startReceiver(run.options.callbackHost, run.audio.path).catch((error: Error) => {
    run.recorder.skipped({ what: 'webhook receiver and media server', phase: 'stateful', reason: error.message });
    return undefined;
  });
  try {
    const [owner, v2Owner, linkOwner, queued, deleter, streamer, outcomes, quota, jobs, models, slow] =
      await Promise.all([
        actor('lifecycle'),
        actor('v2'),
        actor('links'),
        actor('queued-upload'),
        actor('deletions'),
        actor('stream-billing'),
        actor('outcomes'),
        actor('v2-chat', 1000),
        actor('jobs', 1000),
        actor('models'),
        run.options.slow ? actor('slow', 1000) : undefined,
      ]);
    const chatModel = await chatModelListed(run, owner);
    const [lifecycle, v2TaskId] = await Promise.all([
      transcriptionLifecycle(run, owner, receiver),
      v2Lifecycle(run, v2Owner),
      linkAndCancel(run, linkOwner, receiver, queued),
      webhookDeletion(run, deleter)
        .then(() => keyRevocation(run, deleter))
        .then(() => syncCreateLinks(run, deleter))
        .then(() => syncCreateDefaultLanguage(run, deleter))
        .then(() => idempotentCreate(run, deleter)),
      provision ? blockedAccount(run, provision) : undefined,
      provision ? emptyBalance(run, provision) : undefined,
      provision ? rateLimit(run, provision) : undefined,
      provision ? keyLimit(run, provision) : undefined,
      provision ? streamReservation(run, streamer) : undefined,
      linkOutcomes(run, outcomes, receiver)
        .then(() => undecodableUpload(run, outcomes))
        .then(() => absentModel(run, outcomes))
        .then(() => unsupportedLanguage(run, outcomes))
        .then(() => priceOrder(run, outcomes))
        .then(() => goneWebhook(run, outcomes, receiver)),
      concurrentJobs(run, jobs, receiver),
      documentedModels(run, models),
      provision ? noOverspend(run, provision) : undefined,
      provision ? issuedKeyPair(run, provision) : undefined,
      provision ? v2QuoteLeavesNoRecord(run, provision) : undefined,
      v2ChatNotReady(run, quota, receiver).then(() =>
        chatModel
          ? v2FreeQuota(run, quota)
          : run.recorder.skipped({
              what: 'v2 free chat requests',
              phase: 'stateful',
              reason: 'GET /v3/models lists no available chat model (chat would be answered 503 engine_unavailable)',
            }),
      ),
      slow ? runSlow(run, slow) : undefined,
    ]);
    if (!provision) {
      for (const what of [
        'cross_account_isolation',
        'blocked account (403)',
        'empty balance (402)',
        'rate_limit_conformance',
        'key limit',
        'reservation_consistency',
      ])
        run.recorder.skipped({ what, phase: 'stateful', reason: 'needs throwaway accounts (--admin-token)' });
      return;
    }
    const key = await call(run, owner, 'createApiKey', {
      label: 'a key for the isolation probe',
      body: { name: 'isolation' },
    });
    const stranger = await provision(10, 'stranger');
    await crossAccountIsolation(run, stranger, {
      taskId: lifecycle.taskId,
      webhookId: lifecycle.webhookId,
      keyId: bodyOf<{ id?: string }>(key)?.id,
      v2TaskId: v2TaskId ?? undefined,
    });
  } finally {
    await receiver?.close();
  }
}
