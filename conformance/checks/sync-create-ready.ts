// sync_create_ready: the sync create answer is the task as the document describes it at that moment — status
// `ready` with progress 0, mode `sync`, source_type `upload` (rule 1 of the state machine: an uploaded file skips
// `created` and `downloading`; the result is read from the status endpoint afterwards). Written here, not read
// from the document under test, where only prose says it.
import { registerCheck, type ResponseContext } from '../core/registry.ts';

const EXPECTED: Record<string, unknown> = { status: 'ready', progress: 0, mode: 'sync', source_type: 'upload' };

export function sync_create_ready({ exchange }: ResponseContext) {
  const { status, body } = exchange.response;
  if (status !== 200 || new URL(exchange.request.url).pathname !== '/v3/transcriptions/sync/create') return;
  const task = (body as { data?: Record<string, unknown> } | undefined)?.data;
  if (!task || typeof task !== 'object') return;
  const wrong = Object.entries(EXPECTED).filter(([field, value]) => task[field] !== value);
  if (wrong.length === 0) return;
  return {
    title: 'Sync create answer is not a ready upload',
    message: wrong
      .map(([field, value]) => `${field} ${JSON.stringify(task[field])} (expected ${JSON.stringify(value)})`)
      .join(', '),
    severity: 'medium' as const,
  };
}

registerCheck('sync_create_ready', 'response', sync_create_ready);
