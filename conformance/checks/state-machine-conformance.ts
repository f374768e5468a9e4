// state_machine_conformance: the states a task shows over time (create answer, then status polls) move only along
// the documented state machine — the transitions table of `TranscriptionStatus`, plus the two moves its text adds
// (`created`/`downloading`/`ready` → `failed`, and cancel from `created`/`downloading`/`ready` → `cancelled`) —
// polls may skip states between two reads; final states never change; `progress` never goes down and is 100 when
// completed; a completed task has `result`, a failed one `error`.
import { registerCheck } from '../core/registry.ts';
import type { Spec } from '../core/spec.ts';
import type { Exchange, Finding } from '../core/types.ts';

export interface StateMachineTrace {
  /** The create answer and the status reads of one task, in order. */
  observations: Exchange[];
}

interface TaskView {
  status: string;
  progress: number;
  result?: unknown;
  error?: unknown;
}

/** Edges of the documented state machine, read from the TranscriptionStatus description's table. */
export function documentedTransitions(spec: Spec): Map<string, Set<string>> {
  const description = String(spec.schemas.TranscriptionStatus?.description ?? '');
  const edges = new Map<string, Set<string>>();
  const add = (from: string, to: string) => edges.set(from, (edges.get(from) ?? new Set()).add(to));
  for (const line of description.split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    // | from | trigger | condition | to | also |
    if (cells.length >= 6 && /^[a-z]+$/.test(cells[1]!) && /^[a-z]+$/.test(cells[4]!)) add(cells[1]!, cells[4]!);
  }
  if (/can also move to `failed`/.test(description))
    for (const s of ['created', 'downloading', 'ready']) add(s, 'failed');
  if (/`created`, `downloading` or `ready` to\s+`cancelled`/.test(description))
    for (const s of ['created', 'downloading', 'ready']) add(s, 'cancelled');
  return edges;
}

function reachable(edges: Map<string, Set<string>>, from: string, to: string): boolean {
  const seen = new Set([from]);
  const queue = [from];
  while (queue.length > 0) {
    for (const next of edges.get(queue.shift()!) ?? []) {
      if (next === to) return true;
      if (!seen.has(next)) {
        seen.add(next);
        queue.push(next);
      }
    }
  }
  return false;
}

const FINAL = new Set(['completed', 'failed', 'cancelled']);

export function state_machine_conformance(trace: StateMachineTrace, spec: Spec) {
  const edges = documentedTransitions(spec);
  const findings: Finding[] = [];
  let previous: { view: TaskView; exchange: Exchange } | undefined;
  for (const exchange of trace.observations) {
    const view = (exchange.response.body as { data?: TaskView } | undefined)?.data;
    if (exchange.response.status >= 300 || !view || typeof view.status !== 'string') continue;
    if (view.status === 'completed' && (view.result === undefined || view.result === null))
      findings.push({
        title: 'Completed without result',
        message: 'status completed, no result',
        severity: 'high',
        exchange,
      });
    if (view.status === 'completed' && view.progress !== 100)
      findings.push({
        title: 'Completed below 100 %',
        message: `progress ${view.progress}`,
        severity: 'medium',
        exchange,
      });
    if (view.status === 'failed' && (view.error === undefined || view.error === null))
      findings.push({ title: 'Failed without error', message: 'status failed, no error', severity: 'high', exchange });
    if (previous) {
      const from = previous.view.status;
      const to = view.status;
      if (from !== to && (FINAL.has(from) || !reachable(edges, from, to)))
        findings.push({
          title: 'Undocumented state transition',
          message: `${from} → ${to}`,
          severity: 'high',
          exchange,
        });
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
  return findings;
}

registerCheck('state_machine_conformance', 'trace', state_machine_conformance);
