// Scenarios at the account's limits, each on its own account: tasks from a slow link created one after another
// until the server refuses one 429 too_many_concurrent_jobs (at most 12: a server that allows more is listed as not
// run); four sync uploads sent at once by an account whose funds pay for exactly one (no_overspend_conformance: the
// sync create reserves before it answers, so each answer says whether it was paid for; an async create may accept
// and then fail the task with insufficient_balance); and a
// webhook whose endpoint answers 410 Gone to a test delivery is disabled (webhook_disable_conformance).
import { sleep } from '../../core/rate-limiter.ts';
import type { RunContext } from '../../core/run-context.ts';
import type { Exchange } from '../../core/types.ts';
import { buildRequest } from '../build.ts';
import type { Receiver } from './receiver.ts';
import { bodyOf, call, type Actor, needs } from './steps.ts';

type Provision = (balance: number, label: string) => Promise<Actor & { id: string }>;

const MOST_TASKS_TRIED = 12;

export async function concurrentJobs(run: RunContext, actor: Actor, receiver: Receiver | undefined): Promise<void> {
  if (!receiver || !needs(run, 'concurrent tasks', ['createAsyncTranscription', 'cancelTranscription'])) return;
  const accepted: string[] = [];
  try {
    await fillTheLimit(run, actor, receiver, accepted);
  } finally {
    // the tasks only held the limit: cancelled while their slow link downloads, they spare the server the work
    for (const id of accepted)
      await call(run, actor, 'cancelTranscription', { label: 'cancel a task that held the limit', path: { id } });
  }
}

async function fillTheLimit(run: RunContext, actor: Actor, receiver: Receiver, accepted: string[]): Promise<void> {
  for (let i = 1; i <= MOST_TASKS_TRIED; i++) {
    const created = await call(run, actor, 'createAsyncTranscription', {
      label: `task ${i} from a slow link`,
      body: { url: `${receiver.baseUrl}/media/slow.wav`, language: 'en' },
      keep429: true,
      expectation: { kind: 'status', statuses: [202, 429], reason: 'a task within the limit, or one past it' },
    });
    const id = bodyOf<{ transcription_id?: string }>(created)?.transcription_id;
    if (id) accepted.push(id);
    if (created?.response.status !== 429) continue;
    await call(run, actor, 'createAsyncTranscription', {
      label: `task ${i + 1} while ${i - 1} are unfinished`,
      case: 'concurrent-jobs',
      body: { url: `${receiver.baseUrl}/media/slow.wav`, language: 'en' },
      keep429: true,
      expectation: {
        kind: 'status',
        statuses: [429],
        reason: `past the account's concurrent tasks (${i - 1} are unfinished)`,
        code: 'too_many_concurrent_jobs',
      },
    });
    return;
  }
  run.recorder.skipped({
    what: 'concurrent tasks',
    phase: 'stateful',
    reason: `the server accepted ${MOST_TASKS_TRIED} unfinished tasks of one account without a 429`,
  });
}

export async function noOverspend(run: RunContext, provision: Provision): Promise<void> {
  if (!needs(run, 'no overspend', ['calculatePrice', 'createSyncTranscription'])) return;
  const quoter = await provision(10, 'quote');
  const quote = await call(run, quoter, 'calculatePrice', {
    label: 'the price of one upload',
    body: { type: 'transcription', duration_seconds: run.audio.durationSeconds, priority: 'queue' },
    expectation: { kind: 'status', statuses: [200], reason: 'a quote' },
  });
  const price = bodyOf<{ amount?: number }>(quote)?.amount;
  if (typeof price !== 'number' || price <= 0) return;
  const actor = await provision(price, 'one-task');
  const operation = run.spec.byId('createSyncTranscription');
  const request = buildRequest(
    operation,
    { mediaType: 'multipart/form-data', body: { file: 'audio', language: 'en', priority: 'queue' } },
    run.audio,
  );
  const answers = await Promise.all(
    [1, 2, 3, 4].map((i) =>
      run.exchange(request, {
        phase: 'stateful',
        label: `upload ${i} of 4 at once, funds for one`,
        operation,
        credentials: actor,
        keep429: true,
      }),
    ),
  );
  run.trace(
    'no_overspend_conformance',
    { affordable: 1, answers: answers.filter((e): e is Exchange => e !== undefined) },
    'stateful',
    'createSyncTranscription',
  );
}

export async function goneWebhook(run: RunContext, actor: Actor, receiver: Receiver | undefined): Promise<void> {
  if (!receiver || !needs(run, 'a gone webhook endpoint', ['createWebhook', 'testWebhook', 'listWebhooks'])) return;
  const created = await call(run, actor, 'createWebhook', {
    label: 'register an endpoint that answers 410',
    body: { url: `${receiver.baseUrl}/hooks/gone-${actor.account}`, events: ['transcription.completed'] },
    expectation: { kind: 'status', statuses: [201], reason: 'the receiver the other scenarios register' },
  });
  const webhookId = bodyOf<{ id?: string }>(created)?.id;
  if (!webhookId) return;
  await call(run, actor, 'testWebhook', {
    label: 'a test delivery to the gone endpoint',
    path: { id: webhookId },
    expectation: { kind: 'status', statuses: [202], reason: 'a test event of an enabled webhook' },
  });
  let listed: Exchange | undefined;
  for (const until = Date.now() + 15_000; Date.now() < until;) {
    listed = await call(run, actor, 'listWebhooks', { label: 'read the webhook after its 410', query: { limit: 100 } });
    const hook = bodyOf<{ data?: { id?: string; enabled?: boolean }[] }>(listed)?.data?.find((w) => w.id === webhookId);
    if (!listed || hook?.enabled === false) break;
    await sleep(300);
  }
  if (listed)
    run.trace('webhook_disable_conformance', { webhookId, listed }, 'stateful', 'listWebhooks', 'webhook-410');
}
