// async_create_defaults: an async task runs at the priority its create sent, or at the document's async default
// `queue` when none was sent ("queue (sync: lightning)"; sync_create_ready judges the sync one). The task's status
// reads show the priority it was given, so the create request and the reads taken afterwards are compared.
import { registerCheck } from '../core/registry.ts';
import type { Exchange, Finding } from '../core/types.ts';

/** The document's default priority of an async task. */
export const ASYNC_DEFAULT_PRIORITY = 'queue';

export interface AsyncDefaultsTrace {
  /** The async create (JSON or multipart) that made the task. */
  created: Exchange;
  /** Status reads of that task. */
  reads: Exchange[];
}

/** The `priority` the create sent: a JSON body's field or a form's text field; undefined when none was sent. */
export function prioritySent(created: Exchange): string | undefined {
  const body = created.request.body;
  if (body?.kind === 'json') {
    const value = (body.value as { priority?: unknown } | null)?.priority;
    return typeof value === 'string' ? value : undefined;
  }
  if (body?.kind === 'multipart') {
    const part = body.parts.find((p) => p.name === 'priority' && 'value' in p);
    return part && 'value' in part ? part.value : undefined;
  }
  return undefined;
}

export function async_create_defaults(trace: AsyncDefaultsTrace): Finding[] {
  if (trace.created.response.status !== 202) return [];
  const sent = prioritySent(trace.created);
  const expected = sent ?? ASYNC_DEFAULT_PRIORITY;
  const findings: Finding[] = [];
  for (const exchange of trace.reads) {
    if (exchange.response.status !== 200) continue;
    const priority = (exchange.response.body as { data?: { priority?: unknown } } | undefined)?.data?.priority;
    if (priority === undefined || priority === expected) continue;
    findings.push({
      title: sent ? 'An async task runs at another priority than sent' : 'An async task without priority is not queue',
      message: `priority ${JSON.stringify(priority)}; the create sent ${sent ? JSON.stringify(sent) : 'none (the async default is queue)'}`,
      severity: 'medium',
      exchange,
    });
    break;
  }
  return findings;
}

registerCheck('async_create_defaults', 'trace', async_create_defaults);
