// Scenarios of v2 transcript chat. Not ready: a v2 task from a link that answers slowly is asked about at once →
// 400 NOT_READY. The free quota (only with a chat model: a first answer of 503 engine_unavailable makes it not run):
// two v2 tasks of one account are transcribed, one of them created with `prompt` (its analysis is one of the five
// free service-mini requests), the account's balance is then taken to 0, and the questions follow: five answered
// on the plain task and the sixth refused 402 INSUFFICIENT_FUNDS, four answered on the analysed one and the fifth
// refused — so the free ones cost nothing and the next one is paid. The task created with `prompt` must show the
// analysis of that prompt as `ai_analysis` once completed (v2_ai_analysis: the prompt is the chat rules' `ai_prompt`);
// the analysis runs after the transcript is ready, so it is waited for a while after the task completed.
import { sleep } from '../../core/rate-limiter.ts';
import { errorCode, type RunContext } from '../../core/run-context.ts';
import type { Exchange } from '../../core/types.ts';
import type { Receiver } from './receiver.ts';
import { bodyOf, call, type Actor, needs } from './steps.ts';

interface V2Task {
  data?: { status?: string; ai_analysis?: unknown };
}

async function createV2(run: RunContext, actor: Actor, label: string, body: Record<string, unknown>) {
  const created = await call(run, actor, 'createV2Transcription', {
    label,
    mediaType: 'multipart/form-data',
    body: { language: 'en', ...body },
    expectation: { kind: 'status', statuses: [201], reason: 'a v2 task with money on the account' },
  });
  return bodyOf<{ transcription_id?: string }>(created)?.transcription_id;
}

/**
 * How long the analysis of a completed task's prompt may take to appear: one service-mini answer without a token
 * limit, run in the background once the task completed (seconds on a loaded machine; the rest is margin).
 */
const ANALYSIS_WAIT_MS = 45_000;
const PROMPT = 'List the action items.';

/** Reads a v2 task until `done` holds for it (or `waitMs`, the task timeout by default); the last read is returned. */
async function readV2Until(
  run: RunContext,
  actor: Actor,
  id: string,
  done: (task: V2Task) => boolean,
  waitMs = run.options.taskTimeout * 1000,
) {
  let read: Exchange | undefined;
  for (const until = Date.now() + waitMs; Date.now() < until;) {
    read = await call(run, actor, 'getV2Transcription', { label: 'poll the v2 task', path: { id } });
    const task = bodyOf<V2Task>(read);
    if (!read || read.response.status !== 200 || (task && done(task))) break;
    if (['failed', 'cancelled'].includes(task?.data?.status ?? '')) break;
    await sleep(500);
  }
  return read;
}

const waitV2 = async (run: RunContext, actor: Actor, id: string, done: (task: V2Task) => boolean) =>
  bodyOf<V2Task>(await readV2Until(run, actor, id, done));

export async function v2ChatNotReady(run: RunContext, actor: Actor, receiver: Receiver | undefined): Promise<void> {
  if (!receiver || !actor.publicKey) return;
  if (!needs(run, 'v2 chat before the transcript', ['createV2Transcription', 'createV2TranscriptChatCompletion']))
    return;
  const id = await createV2(run, actor, 'create a v2 task from a slow link', {
    source_url: `${receiver.baseUrl}/media/slow.wav`,
  });
  if (!id) return;
  await call(run, actor, 'createV2TranscriptChatCompletion', {
    label: 'chat over a transcription still downloading',
    path: { id },
    body: { messages: ['Who spoke?'], maxTokens: 4 },
    expectation: {
      kind: 'status',
      statuses: [400],
      reason: 'a transcription that is not completed',
      code: 'NOT_READY',
    },
  });
}

const FREE = 5;

export async function v2FreeQuota(run: RunContext, actor: Actor & { id?: string }): Promise<void> {
  if (!actor.publicKey || !actor.id || !run.client.adminToken) return;
  if (
    !needs(run, 'v2 free chat requests', [
      'createV2Transcription',
      'createV2TranscriptChatCompletion',
      'getAccount',
      'topUpAccount',
    ])
  )
    return;
  const [plain, analysed] = await Promise.all([
    createV2(run, actor, 'a v2 task to ask about', { file: 'audio' }),
    createV2(run, actor, 'a v2 task with a prompt', { file: 'audio', prompt: PROMPT }),
  ]);
  if (!plain || !analysed) return;
  const completed = (t: V2Task) => t.data?.status === 'completed';
  const [plainTask, analysedTask] = await Promise.all([
    waitV2(run, actor, plain, completed),
    waitV2(run, actor, analysed, completed),
  ]);
  if (!plainTask || !completed(plainTask) || !analysedTask || !completed(analysedTask)) {
    run.recorder.skipped({
      what: 'v2 free chat requests',
      phase: 'stateful',
      reason: `the v2 tasks ended ${plainTask?.data?.status ?? 'unread'} and ${analysedTask?.data?.status ?? 'unread'}`,
    });
    return;
  }
  // a chat model is listed, so the analysis of the prompt is due: judged once it appears or the wait ends
  const analysisRead = await readV2Until(
    run,
    actor,
    analysed,
    (t) => completed(t) && t.data?.ai_analysis != null,
    ANALYSIS_WAIT_MS,
  );
  const analysedOnce = bodyOf<V2Task>(analysisRead)?.data?.ai_analysis != null;
  const account = await call(run, actor, 'getAccount', { label: 'read the balance', path: { id: actor.id } });
  const balance = bodyOf<{ balance?: number }>(account)?.balance;
  if (typeof balance === 'number' && balance > 0)
    await call(run, actor, 'topUpAccount', {
      label: 'take the balance to 0',
      path: { id: actor.id },
      body: { kind: 'adjust', amount: -balance, description: 'conformance: nothing left for paid chat' },
      expectation: { kind: 'status', statuses: [200, 201], reason: 'an adjustment by the admin' },
    });
  /** Asks the free questions and one past them; how many were answered 200. */
  const ask = async (id: string, free: number) => {
    let answered = 0;
    for (let round = 1; round <= free + 1; round++) {
      const paid = round > free;
      const exchange = await call(run, actor, 'createV2TranscriptChatCompletion', {
        label: paid ? `question ${round}: past the free ones, nothing on the account` : `free question ${round}`,
        path: { id },
        body: { messages: [`Question ${round}?`], model: 'service-mini', maxTokens: 4 },
        expectation: paid
          ? {
              kind: 'status',
              statuses: [402],
              reason: 'a paid request with nothing available',
              code: 'INSUFFICIENT_FUNDS',
            }
          : { kind: 'status', statuses: [200], reason: `service-mini request ${round} of the ${FREE} free ones` },
      });
      if (exchange?.response.status === 200) answered++;
      if (exchange?.response.status === 503) {
        run.recorder.skipped({
          what: 'v2 free chat requests',
          phase: 'stateful',
          reason: `the chat was answered 503 ${errorCode(exchange.response.body) ?? ''}`.trim(),
        });
        return answered;
      }
    }
    return answered;
  };
  const chatAnswered = (await ask(plain, FREE)) > 0;
  // "null when the analysis could not be produced": a missing analysis is judged only once the same chat model
  // answered a question about a transcript of this account, and after one more read (the questions took time too)
  const lastRead = analysedOnce
    ? analysisRead
    : await call(run, actor, 'getV2Transcription', { label: 'read the analysis once more', path: { id: analysed } });
  if (lastRead)
    run.trace('v2_ai_analysis', { prompt: PROMPT, read: lastRead, chatAnswered }, 'stateful', 'getV2Transcription');
  // without its analysis the task says nothing about whether the analysis counted (v2_ai_analysis failed already)
  if (analysedOnce) await ask(analysed, FREE - 1);
}
