// Scenarios whose outcome the document fixes, each on its own account: tasks from links that end one way (a dead
// link and a chain of six redirects fail with download_failed and send a signed `transcription.failed`; a chain of
// five is followed and completes; each is read once more after it ended), an undecodable upload (400
// unsupported_format), a chat model the server lacks (404 model_not_found on chat and on a chat quote), a language
// the transcription model does not list (400 unsupported_language), and the two priorities quoted side by side
// (queue cheaper).
import { writeFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { RunContext } from '../../core/run-context.ts';
import type { Exchange } from '../../core/types.ts';
import type { Receiver } from './receiver.ts';
import { bodyOf, call, pollTask, type Actor, needs } from './steps.ts';

/** The contract's limit on redirects of a link: a chain this long is followed, one longer is a download failure. */
const MAX_REDIRECTS = 5;

interface LinkCase {
  setup: string;
  /** Its name in the ledger's `cases`. */
  case: string;
  path: string;
  expected: { status: 'completed' | 'failed'; code?: string };
}

const LINK_CASES: LinkCase[] = [
  {
    setup: 'a link that answers 404',
    case: 'dead-link',
    path: '/media/missing.wav',
    expected: { status: 'failed', code: 'download_failed' },
  },
  {
    setup: `a link behind ${MAX_REDIRECTS} redirects`,
    path: `/media/hops/${MAX_REDIRECTS}`,
    case: 'redirects-within-limit',
    expected: { status: 'completed' },
  },
  {
    setup: `a link behind ${MAX_REDIRECTS + 1} redirects`,
    path: `/media/hops/${MAX_REDIRECTS + 1}`,
    case: 'redirects-over-limit',
    expected: { status: 'failed', code: 'download_failed' },
  },
];

export async function linkOutcomes(run: RunContext, actor: Actor, receiver: Receiver | undefined): Promise<void> {
  if (
    !receiver ||
    !needs(run, 'link outcomes', ['createAsyncTranscription', 'getTranscriptionStatus', 'createWebhook'])
  )
    return;
  const hookName = `failed-${actor.account}`;
  const hook = await call(run, actor, 'createWebhook', {
    label: 'register the receiver for failed tasks',
    body: { url: `${receiver.baseUrl}/hooks/${hookName}`, events: ['transcription.failed'] },
    expectation: { kind: 'status', statuses: [201], reason: 'the receiver the other scenarios register' },
  });
  const secret = bodyOf<{ secret?: string }>(hook)?.secret;
  const failedIds: string[] = [];
  const tasks = await Promise.all(
    LINK_CASES.map(async (linkCase) => {
      const created = await call(run, actor, 'createAsyncTranscription', {
        label: `create from ${linkCase.setup}`,
        body: { url: `${receiver.baseUrl}${linkCase.path}`, language: 'en' },
        expectation: { kind: 'status', statuses: [202], reason: 'a link to the suite media server is accepted' },
      });
      const id = bodyOf<{ transcription_id?: string }>(created)?.transcription_id;
      if (!created || !id) return undefined;
      const observations = [created, ...(await pollTask(run, actor, id))];
      run.trace(
        'task_outcome_conformance',
        { setup: linkCase.setup, observations, expected: linkCase.expected },
        'stateful',
        'createAsyncTranscription',
        linkCase.case,
      );
      // read once more after its final state: a final state never changes
      const again = await call(run, actor, 'getTranscriptionStatus', {
        label: 'read the ended task again',
        path: { id },
      });
      run.trace(
        'state_machine_conformance',
        { observations: [...observations, ...(again ? [again] : [])] },
        'stateful',
        'getTranscriptionStatus',
      );
      if (linkCase.expected.status === 'failed') failedIds.push(id);
      return id;
    }),
  );
  if (!secret || tasks.some((id) => id === undefined)) return;
  const missing: string[] = [];
  for (const id of failedIds) {
    const event = await receiver.waitFor(hookName, (b) => (b as { data?: { id?: string } }).data?.id === id, 20_000);
    if (!event) missing.push(`transcription.failed for ${id}`);
  }
  run.trace(
    'webhook_signature_conformance',
    { secret, deliveries: receiver.deliveries(hookName), missing },
    'stateful',
    'createWebhook',
  );
}

export async function undecodableUpload(run: RunContext, actor: Actor): Promise<void> {
  if (!needs(run, 'undecodable upload', ['createSyncTranscription'])) return;
  const path = join(dirname(run.audio.path), 'noise.wav');
  writeFileSync(path, randomBytes(20_000));
  const operation = run.spec.byId('createSyncTranscription');
  await run.exchange(
    {
      method: 'POST',
      path: operation.path,
      headers: {},
      body: {
        kind: 'multipart',
        parts: [
          { name: 'file', file: path, filename: 'noise.wav', contentType: 'audio/wav' },
          { name: 'language', value: 'en' },
        ],
      },
    },
    {
      phase: 'stateful',
      label: 'random bytes named noise.wav',
      operation,
      credentials: actor,
      expectation: { kind: 'status', statuses: [400], reason: 'a file no decoder reads', code: 'unsupported_format' },
    },
  );
}

/** A model id the server does not have: the document gives no such id, so a made-up one will do. */
const ABSENT_MODEL = 'service-absent';

export async function absentModel(run: RunContext, actor: Actor): Promise<void> {
  const expectation = {
    kind: 'status' as const,
    statuses: [404],
    reason: `the model ${ABSENT_MODEL} (on /v3 any other id is 404)`,
    code: 'model_not_found',
  };
  await call(run, actor, 'createChatCompletion', {
    label: 'chat with a model the server lacks',
    body: { model: ABSENT_MODEL, messages: [{ role: 'user', content: 'Hello' }], max_tokens: 4 },
    expectation,
  });
  await call(run, actor, 'calculatePrice', {
    label: 'quote a model the server lacks',
    body: { type: 'chat', model: ABSENT_MODEL, prompt_tokens: 10, completion_tokens: 10 },
    expectation,
  });
}

export async function priceOrder(run: RunContext, actor: Actor): Promise<void> {
  if (!needs(run, 'price order', ['calculatePrice'])) return;
  const quote = (priority: string) =>
    call(run, actor, 'calculatePrice', {
      label: `quote ten minutes at ${priority}`,
      body: { type: 'transcription', duration_seconds: 600, priority },
      expectation: { kind: 'status', statuses: [200], reason: 'a quote' },
    });
  const [queue, lightning] = await Promise.all([
    quote('queue'),
    quote('lightning'),
    // a duration a few seconds past a whole minute: rounded up it is 2 minutes, to the nearest 1 (quote_arithmetic)
    run.isSelected('calculateV2TranscriptionCost')
      ? call(run, actor, 'calculateV2TranscriptionCost', {
          label: 'v2 quote of 01:10',
          body: { priority: 'queue', duration: '01:10' },
          expectation: { kind: 'status', statuses: [200], reason: 'a v2 quote' },
        })
      : undefined,
  ]);
  if (queue && lightning)
    run.trace(
      'price_order_conformance',
      { queue, lightning } satisfies Record<string, Exchange>,
      'stateful',
      'calculatePrice',
    );
}

/** Languages to try, in order, for one the server's transcription model does not list. */
const OTHER_LANGUAGES = ['ru', 'de', 'fr', 'es', 'zh', 'ja', 'ar'];

export async function unsupportedLanguage(run: RunContext, actor: Actor): Promise<void> {
  if (!needs(run, 'an unsupported language', ['listModels', 'createSyncTranscription'])) return;
  const models = bodyOf<{ data?: { type?: string; status?: string; languages?: string[] }[] }>(
    await call(run, actor, 'listModels', { label: 'which languages the transcription model lists' }),
  )?.data;
  const listed = models?.find((m) => m.type === 'transcription' && Array.isArray(m.languages))?.languages;
  const language = listed && OTHER_LANGUAGES.find((l) => !listed.some((s) => s === l || s.startsWith(`${l}-`)));
  if (!language) {
    run.recorder.skipped({
      what: 'an unsupported language',
      phase: 'stateful',
      reason: listed
        ? `the transcription model lists all of ${OTHER_LANGUAGES.join(', ')}`
        : 'no transcription model lists its languages',
    });
    return;
  }
  await call(run, actor, 'createSyncTranscription', {
    label: `sync create in ${language}, which the model does not list`,
    mediaType: 'multipart/form-data',
    body: { file: 'audio', language },
    expectation: {
      kind: 'status',
      statuses: [400],
      reason: `a language the transcription model does not list (${listed!.join(', ')})`,
      code: 'unsupported_language',
    },
  });
}
