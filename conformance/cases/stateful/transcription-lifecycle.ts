// Scenario: the v3 task lifecycle with billing and webhooks. A webhook to the suite's receiver is registered, the
// price of the audio is quoted, an async task is created from an upload (with diarization and word confidences), its
// read links are followed, its status is polled to a final state (state machine, progress) with the balance read
// while it runs (its reservation), its result is read in every format, the charge is compared with the quote (ledger
// capture, balance change, the task's cost) and captured once, the task list shows it, and the signed
// `transcription.completed` delivery — plus a test delivery — is verified (its signature, and the state it reports),
// after which the task is still read from the status endpoint.
import type { RunContext } from '../../core/run-context.ts';
import type { WebhookEvent } from '../../checks/state-machine-conformance.ts';
import type { Exchange } from '../../core/types.ts';
import type { Receiver } from './receiver.ts';
import { ledgerFor, pollWithBalance, readingOf, traceTaskReservation } from './reservations.ts';
import { bodyOf, call, finalStatusOf, followReadLinks, type Actor, needs } from './steps.ts';

export interface LifecycleOutcome {
  taskId?: string;
  webhookId?: string;
}

const NIL_UUID = '00000000-0000-0000-0000-000000000000';

function parsedEvent(body: string): WebhookEvent[] {
  try {
    const event = JSON.parse(body) as WebhookEvent;
    return typeof event === 'object' && event !== null ? [event] : [];
  } catch {
    return []; // an unparsable body is webhook_signature_conformance's finding
  }
}

async function registerWebhook(run: RunContext, actor: Actor, receiver: Receiver, name: string) {
  if (!needs(run, 'webhook delivery', ['createWebhook'])) return undefined;
  const created = await call(run, actor, 'createWebhook', {
    label: 'register the suite receiver',
    body: { url: `${receiver.baseUrl}/hooks/${name}`, events: ['transcription.completed', 'transcription.failed'] },
    expectation: { kind: 'positive' },
  });
  const body = bodyOf<{ id?: string; secret?: string }>(created);
  if (created?.response.status !== 201 || !body?.id || !body.secret) {
    run.recorder.skipped({
      what: 'webhook delivery',
      phase: 'stateful',
      reason: `the server did not register ${receiver.baseUrl} (${created?.response.status ?? 'not sent'}; a server must allow the suite's address, see --callback-host)`,
    });
    return undefined;
  }
  return { id: body.id, secret: body.secret };
}

async function balanceOf(run: RunContext, actor: Actor): Promise<number | undefined> {
  if (!actor.id || !run.client.adminToken) return undefined;
  const exchange = await call(run, actor, 'getAccount', { label: 'read the balance', path: { id: actor.id } });
  return bodyOf<{ balance?: number }>(exchange)?.balance;
}

async function ledgerCapture(run: RunContext, actor: Actor, taskId: string): Promise<number | undefined> {
  const entries = await ledgerFor(run, actor, taskId);
  if (!entries) return undefined;
  const captures = entries.filter((e) => e.kind === 'capture');
  return captures.length === 0 ? 0 : -captures.reduce((sum, e) => sum + e.amount, 0);
}

export async function transcriptionLifecycle(
  run: RunContext,
  actor: Actor,
  receiver: Receiver | undefined,
): Promise<LifecycleOutcome> {
  if (!needs(run, 'transcription lifecycle', ['createAsyncTranscription', 'getTranscriptionStatus'])) return {};
  const outcome: LifecycleOutcome = {};
  const hook = receiver ? await registerWebhook(run, actor, receiver, `lifecycle-${actor.account}`) : undefined;
  outcome.webhookId = hook?.id;
  const quote = await call(run, actor, 'calculatePrice', {
    label: 'quote the audio',
    body: { type: 'transcription', duration_seconds: run.audio.durationSeconds, priority: 'queue' },
    expectation: { kind: 'positive' },
  });
  const quoted = bodyOf<{ amount?: number }>(quote)?.amount;
  const reservedFrom = readingOf(quote);
  const before = await balanceOf(run, actor);
  const created = await call(run, actor, 'createAsyncTranscription', {
    label: 'create an async task from an upload',
    mediaType: 'multipart/form-data',
    // with speakers and word confidences, so the result shows what those options add
    body: {
      file: 'audio',
      language: 'en',
      priority: 'queue',
      diarization: true,
      output: { format: 'json', word_timestamps: true, confidence: true },
    },
    expectation: { kind: 'status', statuses: [202], reason: 'an English upload with money on the account' },
  });
  const taskId = bodyOf<{ transcription_id?: string }>(created)?.transcription_id;
  if (!created || !taskId) {
    run.recorder.skipped({
      what: 'transcription lifecycle',
      phase: 'stateful',
      reason: 'the async create did not answer 202',
    });
    return outcome;
  }
  outcome.taskId = taskId;
  const probes = await followReadLinks(run, actor, created);
  run.trace('ensure_resource_availability', { created, probes }, 'stateful', created.operationId);
  // the link's status read is the task's first: taken right after the create, the likeliest to show it `ready`
  const first = probes.filter((exchange) => exchange.operationId === 'getTranscriptionStatus');
  // an upload is ready (and reserved) from its create on
  const { observations, holding } = await pollWithBalance(run, actor, taskId, 'ready');
  const final = finalStatusOf(observations);
  const again = await traceTaskReservation(run, actor, taskId, { before: reservedFrom, holding, observations });
  const listed = await call(run, actor, 'listTranscriptions', { label: 'list the tasks', query: { limit: 5 } });
  if (final !== 'completed') {
    run.recorder.skipped({
      what: 'transcription result and billing',
      phase: 'stateful',
      reason: `the task ended ${final ?? 'without a final state in time'} (goforward.wav in English)`,
    });
  } else {
    for (const format of ['json', 'srt', 'vtt', 'txt']) {
      await call(run, actor, 'getTranscriptionResult', {
        label: `result as ${format}`,
        path: { id: taskId },
        query: { format },
        expectation: { kind: 'status', statuses: [200], reason: 'the result of a completed task' },
      });
    }
    if (quoted !== undefined) {
      const after = await balanceOf(run, actor);
      const task = bodyOf<{ data?: { cost?: number } }>(observations.at(-1));
      run.trace(
        'billing_consistency',
        {
          task: taskId,
          quoted,
          completed: observations.at(-1),
          charged: {
            'the task cost': task?.data?.cost,
            'the ledger capture': await ledgerCapture(run, actor, taskId),
            'the balance change': before !== undefined && after !== undefined ? before - after : undefined,
          },
        },
        'stateful',
        'calculatePrice',
      );
    }
  }
  const events: WebhookEvent[] = [];
  if (hook && receiver && final && final !== 'cancelled') {
    const name = `lifecycle-${actor.account}`;
    const event = await receiver.waitFor(name, (b) => (b as { data?: { id?: string } }).data?.id === taskId, 20_000);
    // "a lost webhook is harmless": once its event went out, the task is still read from the status endpoint
    const reread = await call(run, actor, 'getTranscriptionStatus', {
      label: 'read the task again after its event',
      path: { id: taskId },
    });
    if (reread)
      run.trace('ensure_resource_availability', { created, probes: [reread] }, 'stateful', 'getTranscriptionStatus');
    const tested: Exchange | undefined = await call(run, actor, 'testWebhook', {
      label: 'send a test event',
      path: { id: hook.id },
    });
    const test =
      tested?.response.status === 202
        ? await receiver.waitFor(name, (b) => (b as { data?: { id?: string } }).data?.id === NIL_UUID, 20_000)
        : undefined;
    const missing = [
      ...(event ? [] : [`transcription.${final} for ${taskId}`]),
      ...(tested?.response.status === 202 && !test ? ['the test event'] : []),
    ];
    run.trace(
      'webhook_signature_conformance',
      { secret: hook.secret, deliveries: receiver.deliveries(name), missing },
      'stateful',
    );
    events.push(...receiver.deliveries(name).flatMap((d) => parsedEvent(d.body)));
  }
  run.trace(
    'state_machine_conformance',
    { observations: [...first, ...observations, ...again], upload: true, listed: listed ? [listed] : [], events },
    'stateful',
    'getTranscriptionStatus',
  );
  run.trace(
    'async_create_defaults',
    { created, reads: [...first, ...observations] },
    'stateful',
    'createAsyncTranscription',
  );
  return outcome;
}
