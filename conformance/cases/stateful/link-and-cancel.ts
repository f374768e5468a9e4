// Scenario: tasks from a link and cancellation. A task from a link to the suite's media server runs through
// created → downloading → ready → processing → completed; a task from a link that answers slowly is read while the
// suite's media server holds its answer back (it must show `downloading`), then cancelled while it downloads (200,
// cancelled, and a second cancel is 409). When the server refuses the suite's address,
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

export async function linkAndCancel(run: RunContext, actor: Actor, receiver: Receiver | undefined): Promise<void> {
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
      const beforeSlow = await readBalance(run, actor, 'before a task from a slow link');
      const tag = randomUUID();
      const slow = await call(run, actor, 'createAsyncTranscription', {
        label: 'create from a slow link',
        body: { url: `${receiver.baseUrl}/media/slow.wav?fetch=${tag}`, language: 'en' },
        expectation: { kind: 'status', statuses: [202], reason: 'the same link host was accepted a moment ago' },
      });
      const slowId = bodyOf<{ transcription_id?: string }>(slow)?.transcription_id;
      // read while the media server holds the link's answer back: the task is downloading it at that moment
      const fetching =
        slowId && (await receiver.fetching(tag, 4000))
          ? await call(run, actor, 'getTranscriptionStatus', {
              label: 'read while its link downloads',
              path: { id: slowId },
            })
          : undefined;
      if (slowId)
        await cancelAndFollow(
          run,
          actor,
          slowId,
          beforeSlow,
          [200],
          'cancel while the media is downloading',
          fetching ? [fetching] : [],
        );
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
