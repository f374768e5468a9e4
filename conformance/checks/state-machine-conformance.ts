// state_machine_conformance: the states a task shows over time (create answer, then status polls) move only along
// the interface document's state machine, written here so a looser `--spec` cannot weaken it: the transitions
// table, rule 3's moves into `failed` before or during the download, and the contract's cancel extension
// (`created`/`downloading`/`ready` → `cancelled`). Polls may skip states between two reads; final states never
// change; an uploaded file starts `ready` (rule 1); a task read while its link is being fetched is `downloading`;
// `progress` is an integer 0–100, 0 until recognition starts, never going down and 100 when completed; `result` is
// there exactly when the task is completed and `error` exactly when it failed. The same per-task rules hold for the
// tasks a list answer shows, and a webhook event carries its event's final state (with `error` only on
// `transcription.failed`), the one the status reads ended in. A v2 task's reads move forward only along the
// document's v2 states (pending → processing → completed; failed and cancelled, the contract's extension, end it
// too), its final state never changes, no read before `completed` carries `results` (links) or `ai_analysis` ("null
// until completed"), and its timestamps are null exactly while not reached.
import { registerCheck } from '../core/registry.ts';
import type { Exchange, Finding } from '../core/types.ts';

export interface WebhookEvent {
  type?: unknown;
  data?: { id?: unknown; status?: unknown; error?: unknown };
}

export interface StateMachineTrace {
  /** The create answer and the status reads of one task, in order. */
  observations: Exchange[];
  /** The task was created from an uploaded file: it starts `ready` and never shows `created` or `downloading`. */
  upload?: boolean;
  /** List answers whose tasks are judged one by one. */
  listed?: Exchange[];
  /** Webhook event bodies received for tasks of the run. */
  events?: WebhookEvent[];
  /** The reads of one v2 task, in order. */
  v2Observations?: Exchange[];
  /**
   * Reads of a task from a link taken while the suite's media server was still holding back the link's answer: the
   * server is fetching it, so the task shows `downloading` (or a final state it reached meanwhile).
   */
  fetching?: Exchange[];
}

/** The order of the v2 states: a read may skip ahead, never go back; the final ones share the last rank. */
export const V2_RANK: ReadonlyMap<string, number> = new Map([
  ['pending', 0],
  ['processing', 1],
  ['completed', 2],
  ['failed', 2],
  ['cancelled', 2],
]);

interface V2View {
  status?: unknown;
  results?: unknown;
  ai_analysis?: unknown;
  started_at?: unknown;
  completed_at?: unknown;
  billed_at?: unknown;
}

/**
 * "created_at, started_at, completed_at, billed_at: null while not reached", as the v2 states reach them: a
 * transcription not yet final has no completed_at and none but a completed one is billed; one that is processing or
 * completed has started, and a completed one has its completed_at. (started_at while `pending` is not judged: a
 * link's pending task may already be downloading it.)
 */
function v2TimestampFindings(status: string, data: V2View, exchange: Exchange): Finding[] {
  const findings: Finding[] = [];
  const set = (field: keyof V2View) => data[field] !== null && data[field] !== undefined;
  const early = (['completed_at', 'billed_at'] as const).filter(
    (field) => (status === 'pending' || status === 'processing') && set(field),
  );
  if ((status === 'failed' || status === 'cancelled') && set('billed_at')) early.push('billed_at');
  if (early.length > 0)
    findings.push({
      title: 'A v2 timestamp set before it was reached',
      message: `status ${status} with ${early.map((field) => `${field} ${JSON.stringify(data[field])}`).join(', ')}`,
      severity: 'medium',
      exchange,
    });
  // (a field left out altogether is the schema's finding: only an explicit null is judged here)
  const missing = [
    ...((status === 'processing' || status === 'completed') && data.started_at === null ? ['started_at'] : []),
    ...(status === 'completed' && data.completed_at === null ? ['completed_at'] : []),
  ];
  if (missing.length > 0)
    findings.push({
      title: 'A v2 timestamp still null once reached',
      message: `status ${status} with ${missing.join(' and ')} null`,
      severity: 'medium',
      exchange,
    });
  return findings;
}

function v2Findings(observations: Exchange[]): Finding[] {
  const findings: Finding[] = [];
  let previous: string | undefined;
  for (const exchange of observations) {
    if (exchange.response.status >= 300) continue;
    const data = (exchange.response.body as { data?: V2View } | undefined)?.data;
    const status = data?.status;
    if (typeof status !== 'string') continue;
    // "results: null until completed"; "While processing, `results` and `ai_analysis` are null."
    const early = (['results', 'ai_analysis'] as const).filter(
      (field) => status !== 'completed' && data?.[field] !== null && data?.[field] !== undefined,
    );
    if (early.length > 0)
      findings.push({
        title: 'A v2 task carries results before it is completed',
        message: `status ${status} with ${early.map((field) => `${field} ${JSON.stringify(data?.[field])}`).join(', ')}`,
        severity: 'high',
        exchange,
      });
    findings.push(...v2TimestampFindings(status, data!, exchange));
    const rank = V2_RANK.get(status);
    if (rank === undefined) {
      findings.push({ title: 'Undocumented v2 state', message: `status ${status}`, severity: 'high', exchange });
      continue;
    }
    if (previous !== undefined && previous !== status && V2_RANK.get(previous)! >= rank)
      findings.push({
        title: 'Undocumented v2 state transition',
        message: `${previous} → ${status}`,
        severity: 'high',
        exchange,
      });
    previous = status;
  }
  return findings;
}

interface TaskView {
  id?: unknown;
  status: string;
  progress: unknown;
  result?: unknown;
  error?: unknown;
}

/** The document's transitions (seed table and rule 3) plus the contract's cancel extension. */
export const TRANSITIONS: ReadonlyMap<string, ReadonlySet<string>> = new Map([
  ['created', new Set(['downloading', 'failed', 'cancelled'])],
  ['downloading', new Set(['ready', 'failed', 'cancelled'])],
  ['ready', new Set(['processing', 'failed', 'cancelled'])],
  ['processing', new Set(['completed', 'failed'])],
  ['completed', new Set<string>()],
  ['failed', new Set<string>()],
  ['cancelled', new Set<string>()],
]);

/** The states before recognition starts: their progress is 0 (the OpenAPI: "0 until recognition starts"). */
const WAITING: ReadonlySet<string> = new Set(['created', 'downloading', 'ready']);

export const FINAL_STATES: ReadonlySet<string> = new Set(['completed', 'failed', 'cancelled']);

const EVENT_STATUS: Record<string, string> = {
  'transcription.completed': 'completed',
  'transcription.failed': 'failed',
};

/** Whether `to` can follow `from` through zero or more unobserved states. */
function reachable(from: string, to: string): boolean {
  const seen = new Set([from]);
  const queue = [from];
  while (queue.length > 0) {
    for (const next of TRANSITIONS.get(queue.shift()!) ?? []) {
      if (next === to) return true;
      if (!seen.has(next)) {
        seen.add(next);
        queue.push(next);
      }
    }
  }
  return false;
}

const present = (value: unknown) => value !== undefined && value !== null;

/** The rules one snapshot of a task must keep by itself. */
function snapshotFindings(view: TaskView, exchange: Exchange | undefined, where: string): Finding[] {
  const findings: Finding[] = [];
  const at = where ? ` (${where})` : '';
  const add = (title: string, message: string, severity: Finding['severity']) =>
    findings.push({ title, message: `${message}${at}`, severity, exchange });
  if (!TRANSITIONS.has(view.status)) add('Undocumented task state', `status ${view.status}`, 'high');
  const progress = view.progress;
  if (progress !== undefined && (!Number.isInteger(progress) || (progress as number) < 0 || (progress as number) > 100))
    add('Progress outside 0–100', `progress ${JSON.stringify(progress)}`, 'medium');
  // the OpenAPI's "0 until recognition starts": progress belongs to `processing`, a task still waiting has done none of it
  if (WAITING.has(view.status) && typeof progress === 'number' && progress > 0)
    add('Progress before recognition started', `status ${view.status} with progress ${progress}`, 'medium');
  if (view.status === 'completed' && !present(view.result))
    add('Completed without result', 'status completed, no result', 'high');
  if (view.status === 'completed' && progress !== undefined && progress !== 100)
    add('Completed below 100 %', `progress ${JSON.stringify(progress)}`, 'medium');
  if (view.status !== 'completed' && present(view.result))
    add('Result before completion', `status ${view.status} carries a result`, 'high');
  if (view.status === 'failed' && !present(view.error)) add('Failed without error', 'status failed, no error', 'high');
  if (view.status !== 'failed' && present(view.error))
    add('Error on a task that did not fail', `status ${view.status} carries an error`, 'medium');
  return findings;
}

const taskOf = (exchange: Exchange): TaskView | undefined => {
  if (exchange.response.status >= 300) return undefined;
  const view = (exchange.response.body as { data?: TaskView } | undefined)?.data;
  return view && !Array.isArray(view) && typeof view.status === 'string' ? view : undefined;
};

export function state_machine_conformance(trace: StateMachineTrace) {
  const findings: Finding[] = [];
  let previous: { view: TaskView; exchange: Exchange } | undefined;
  for (const exchange of trace.observations) {
    const view = taskOf(exchange);
    if (!view) continue;
    findings.push(...snapshotFindings(view, exchange, ''));
    const path = new URL(exchange.request.url).pathname;
    // a cancel that answers 200 answers the cancelled task ("→ cancelled (200 with the object)")
    if (
      exchange.response.status === 200 &&
      path.startsWith('/v3/transcriptions/cancel/') &&
      view.status !== 'cancelled'
    )
      findings.push({
        title: 'A cancel answered 200 with a task that is not cancelled',
        message: `status ${view.status}`,
        severity: 'high',
        exchange,
      });
    if (trace.upload && (view.status === 'created' || view.status === 'downloading'))
      findings.push({
        title: 'An upload shows a download state',
        message: `status ${view.status}; an uploaded file is ready at once`,
        severity: 'medium',
        exchange,
      });
    if (previous) {
      const from = previous.view.status;
      const to = view.status;
      if (from !== to && (FINAL_STATES.has(from) || !reachable(from, to)))
        findings.push({
          title: 'Undocumented state transition',
          message: `${from} → ${to}`,
          severity: 'high',
          exchange,
        });
      if (typeof view.progress === 'number' && typeof previous.view.progress === 'number')
        if (view.progress < previous.view.progress)
          findings.push({
            title: 'Progress went backwards',
            message: `${previous.view.progress} → ${view.progress} (${from} → ${to})`,
            severity: 'high',
            exchange,
          });
    }
    previous = { view, exchange };
  }
  for (const exchange of trace.listed ?? []) {
    const items = (exchange.response.body as { data?: unknown } | undefined)?.data;
    if (exchange.response.status >= 300 || !Array.isArray(items)) continue;
    for (const item of items as TaskView[])
      if (item && typeof item.status === 'string')
        findings.push(...snapshotFindings(item, exchange, `listed task ${String(item.id)}`));
  }
  for (const exchange of trace.fetching ?? []) {
    const view = taskOf(exchange);
    if (view && view.status !== 'downloading' && !FINAL_STATES.has(view.status))
      findings.push({
        title: 'A task whose link is being fetched does not show downloading',
        message: `status ${view.status} while the link's answer was still on its way (created → downloading → ready)`,
        severity: 'high',
        exchange,
      });
  }
  findings.push(...v2Findings(trace.v2Observations ?? []));
  const finalStatus = previous && FINAL_STATES.has(previous.view.status) ? previous.view : undefined;
  for (const event of trace.events ?? []) {
    const expected = typeof event.type === 'string' ? EVENT_STATUS[event.type] : undefined;
    if (!expected || !event.data) continue;
    const status = event.data.status;
    const where = `${String(event.type)} for ${String(event.data.id)}`;
    if (status !== expected)
      findings.push({
        title: "Event status is not the event's state",
        message: `${where}: ${String(status)}`,
        severity: 'high',
      });
    if (expected === 'failed' && !present(event.data.error))
      findings.push({ title: 'Failed event without error', message: where, severity: 'medium' });
    if (expected !== 'failed' && present(event.data.error))
      findings.push({ title: 'Error on an event that did not fail', message: where, severity: 'medium' });
    if (finalStatus && event.data.id === finalStatus.id && status !== finalStatus.status)
      findings.push({
        title: 'Final state changed',
        message: `${where} says ${String(status)}; the status reads ended ${finalStatus.status}`,
        severity: 'high',
      });
  }
  return findings;
}

registerCheck('state_machine_conformance', 'trace', state_machine_conformance);
