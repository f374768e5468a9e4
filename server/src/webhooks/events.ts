// The thin event payloads of the contract (TranscriptionCompletedEvent, TranscriptionFailedEvent): `{ id, type,
// created_at, data: { id, status, error? } }`, made from a task that reached its final state, or as the test event
// of POST /v3/webhooks/test/{id} (the nil task id; a failed test carries an example `task_failed` error).
import type {
  ErrorObject,
  TranscriptionCompletedEvent,
  TranscriptionFailedEvent,
  WebhookEventType,
} from '../../../generated/client/types.gen.ts';
import { parseJson, toIso } from '../db/rows.ts';
import type { JobRow } from '../transcriptions/jobs.ts';
import { taskErrorOf, taskFailures } from '../transcriptions/task-errors.ts';

export type WebhookEvent = TranscriptionCompletedEvent | TranscriptionFailedEvent;

export const NIL_UUID = '00000000-0000-0000-0000-000000000000';

/** The event type a task's final state emits, or undefined for a state that emits none (cancelled, unfinished). */
export function eventTypeOf(status: JobRow['status']): WebhookEventType | undefined {
  if (status === 'completed') return 'transcription.completed';
  if (status === 'failed') return 'transcription.failed';
  return undefined;
}

function eventOf(
  id: string,
  type: WebhookEventType,
  createdAt: string,
  taskId: string,
  error: ErrorObject | null,
): WebhookEvent {
  if (type === 'transcription.completed') {
    return { id, type, created_at: createdAt, data: { id: taskId, status: 'completed' } };
  }
  return {
    id,
    type,
    created_at: createdAt,
    data: { id: taskId, status: 'failed', error: error ?? taskErrorOf(taskFailures.taskFailed()) },
  };
}

/** The event of a task in a final state; `created_at` is the moment the task ended (its `completed_at`). */
export function taskEvent(id: string, type: WebhookEventType, task: JobRow): WebhookEvent {
  const endedAt = task.completed_at ? toIso(task.completed_at) : new Date().toISOString();
  return eventOf(id, type, endedAt, task.id, parseJson<ErrorObject>(task.error));
}

/** The test event of an endpoint: its first subscribed type, about the nil task. */
export function testEvent(id: string, type: WebhookEventType, at: string): WebhookEvent {
  return eventOf(id, type, at, NIL_UUID, taskErrorOf(taskFailures.taskFailed()));
}
