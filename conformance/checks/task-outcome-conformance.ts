// task_outcome_conformance: a task the scenario set up to end one way ends that way — a link that answers 404 or
// redirects more than five times ends `failed` with `download_failed`, a link behind five redirects or fewer is
// followed and `completed` (the contract: "redirects ≤ 5, each re-checked; failures end the task with
// download_failed"). The last status read is judged: a server that completes a dead link's task, gives up on a short
// redirect chain or ends the task with another code fails it.
import { registerCheck } from '../core/registry.ts';
import type { Exchange, Finding } from '../core/types.ts';

export interface TaskOutcomeTrace {
  /** What was set up, for the message ("a link that answers 404"). */
  setup: string;
  /** The create answer and the status reads, in order. */
  observations: Exchange[];
  expected: { status: 'completed' | 'failed'; code?: string };
}

interface TaskBody {
  data?: { status?: unknown; error?: { code?: unknown } | null };
}

export function task_outcome_conformance(trace: TaskOutcomeTrace): Finding[] {
  const last = trace.observations.at(-1);
  const task = (last?.response.body as TaskBody | undefined)?.data;
  const status = typeof task?.status === 'string' ? task.status : undefined;
  const code = typeof task?.error?.code === 'string' ? task.error.code : undefined;
  if (status === trace.expected.status && (!trace.expected.code || code === trace.expected.code)) return [];
  const expected = `${trace.expected.status}${trace.expected.code ? ` with ${trace.expected.code}` : ''}`;
  const seen = status
    ? `${status}${code ? ` with ${code}` : ''}`
    : `no final state (last answer ${last?.response.status})`;
  return [
    {
      title: 'A task ended otherwise than the document says',
      message: `${trace.setup}: expected ${expected}, the task ended ${seen}`,
      severity: 'high',
      exchange: last,
    },
  ];
}

registerCheck('task_outcome_conformance', 'trace', task_outcome_conformance);
