// Scenario: tasks from a link and cancellation. A task from a link to the suite's media server runs through
// created → downloading → ready → processing → completed; a task from a link that answers slowly is read while the
// suite's media server holds its answer back (it must show `downloading`), then cancelled while it downloads (200,
// cancelled, and a second cancel is 409); meanwhile another account's upload, waiting for the busy worker, is read
// at once (rule 1: `ready`) and cancelled. When the server refuses the suite's address,
// an uploaded task is cancelled right away instead (200, or 409 if recognition already started). The balance is
// read around each task: the completed one is captured once, the cancelled one's reservation released.
import { randomUUID } from 'node:crypto';
import type { RunContext } from '../../core/run-context.ts';
import type { BalanceReading } from '../../checks/reservation-consistency.ts';
import type { Exchange } from '../../core/types.ts';
import type { Receiver } from './receiver.ts';
import { pollWithBalance, readBalance, traceTaskReservation } from './reservations.ts';
import { bodyOf, call, pollTask, type Actor, needs } from './steps.ts';

async function cancelAndFollow(
  run: RunContext,
  actor: Actor,
  taskId: string,
  before: BalanceReading | undefined,
  allowed: number[],
  reason: string,
  fetching: Exchange[] = [],
) {
  const cancelled = await call(run, actor, 'cancelTranscription', {
    label: 'cancel',
    path: { id: taskId },
    expectation: { kind: 'status', statuses: allowed, reason },
  });
  const observations: Exchange[] = [...fetching, ...(cancelled ? [cancelled] : [])];
  observations.push(...(await pollTask(run, actor, taskId)));
  observations.push(...(await traceTaskReservation(run, actor, taskId, { before, holding: [], observations })));
  run.trace('state_machine_conformance', { observations, fetching }, 'stateful', 'cancelTranscription');
  const status = bodyOf<{ data?: { status?: string } }>(observations.at(-1))?.data?.status;
  if (status && ['completed', 'failed', 'cancelled'].includes(status))
    await call(run, actor, 'cancelTranscription', {
      label: 'cancel a task in a final state',
      path: { id: taskId },
      expectation: { kind: 'status', statuses: [409], reason: `cancel of a ${status} task` },
    });
}

/** How long the slow link may wait for a worker before the read taken while it downloads is given up. */
const FETCH_WAIT_MS = 20_000;

/**
 * An upload created while a worker is busy fetching the slow link: on a server whose workers are all busy it waits
 * for one, so the read right after its create shows it as rule 1 says an upload starts — `ready`, never `created`
 * or `downloading` (a server with a free worker may show it `processing` already). It is cancelled at once: it
 * only had to be seen waiting. On its own account, so its reservation does not move the link account's balance.
 */
async function uploadWhileBusy(run: RunContext, actor: Actor): Promise<void> {
  const created = await call(run, actor, 'createAsyncTranscription', {
    label: 'an upload while a worker fetches a link',
    mediaType: 'multipart/form-data',
    body: { file: 'audio', language: 'en', priority: 'queue' },
    expectation: { kind: 'status', statuses: [202], reason: 'an English upload with money on the account' },
  });
  const id = bodyOf<{ transcription_id?: string }>(created)?.transcription_id;
  if (!id) return;
  const read = await call(run, actor, 'getTranscriptionStatus', { label: 'read the upload at once', path: { id } });
  const cancelled = await call(run, actor, 'cancelTranscription', {
    label: 'cancel the waiting upload',
    path: { id },
    expectation: { kind: 'status', statuses: [200, 409], reason: 'cancel of an upload (409 once recognition started)' },
  });
  const observations = [read, cancelled].filter((e): e is Exchange => e !== undefined);
  observations.push(...(await pollTask(run, actor, id)));
  run.trace('state_machine_conformance', { observations, upload: true }, 'stateful', 'getTranscriptionStatus');
}

export async function linkAndCancel(
  run: RunContext,
  actor: Actor,
  receiver: Receiver | undefined,
  queued?: Actor,
): Promise<void> {
  if (
    !needs(run, 'tasks from a link and cancel', [
      'createAsyncTranscription',
      'getTranscriptionStatus',
      'cancelTranscription',
    ])
  )
    return;
  let linksAccepted = false;
  if (receiver) {
    const before = await readBalance(run, actor, 'before a task from a link');
    const created = await call(run, actor, 'createAsyncTranscription', {
      label: 'create from a link',
      body: { url: `${receiver.baseUrl}/media/goforward.wav`, language: 'en' },
      expectation: { kind: 'any' },
    });
    const taskId = bodyOf<{ transcription_id?: string }>(created)?.transcription_id;
    if (created?.response.status === 202 && taskId) {
      linksAccepted = true;
      const { observations, holding } = await pollWithBalance(run, actor, taskId, 'created');
      observations.push(...(await traceTaskReservation(run, actor, taskId, { before, holding, observations })));
      run.trace('state_machine_conformance', { observations }, 'stateful', 'createAsyncTranscription');
      // created without `priority`: the task runs at the async default
      run.trace('async_create_defaults', { created, reads: observations }, 'stateful', 'createAsyncTranscription');
      const beforeSlow = await readBalance(run, actor, 'before a task from a slow link');
      const tag = randomUUID();
      const slow = await call(run, actor, 'createAsyncTranscription', {
        label: 'create from a slow link',
        // lightning: taken before the other scenarios' queued tasks, so it is fetched while the suite waits below
        body: { url: `${receiver.baseUrl}/media/slow.wav?fetch=${tag}`, language: 'en', priority: 'lightning' },
        expectation: { kind: 'status', statuses: [202], reason: 'the same link host was accepted a moment ago' },
      });
      const slowId = bodyOf<{ transcription_id?: string }>(slow)?.transcription_id;
      // read while the media server holds the link's answer back: the task is downloading it at that moment
      // (the wait ends as soon as the server fetches; it is long only when other scenarios' tasks hold its workers)
      const held = slowId ? await receiver.fetching(tag, FETCH_WAIT_MS) : false;
      const readAndCancel = async (id: string) => {
        const fetching = held
          ? await call(run, actor, 'getTranscriptionStatus', { label: 'read while its link downloads', path: { id } })
          : undefined;
        await cancelAndFollow(
          run,
          actor,
          id,
          beforeSlow,
          [200],
          'cancel while the media is downloading',
          fetching ? [fetching] : [],
        );
      };
      // the upload goes beside the read and the cancel: the worker stays busy with the link until its held answer ends
      await Promise.all([
        slowId ? readAndCancel(slowId) : undefined,
        held && queued ? uploadWhileBusy(run, queued) : undefined,
      ]);
    } else {
      run.recorder.skipped({
        what: 'tasks from a link',
        phase: 'stateful',
        reason: `the server refused ${receiver.baseUrl} (${created?.response.status ?? 'not sent'}); cancel is tested on an upload`,
      });
    }
  }
  if (!linksAccepted) {
    const before = await readBalance(run, actor, 'before an upload to cancel');
    const created = await call(run, actor, 'createAsyncTranscription', {
      label: 'create an upload to cancel',
      mediaType: 'multipart/form-data',
      body: { file: 'audio', language: 'en', priority: 'queue' },
      expectation: { kind: 'status', statuses: [202], reason: 'an English upload with money on the account' },
    });
    const taskId = bodyOf<{ transcription_id?: string }>(created)?.transcription_id;
    if (taskId) await cancelAndFollow(run, actor, taskId, before, [200, 409], 'cancel right after an upload');
  }
}
