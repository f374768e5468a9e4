// Steps the stateful scenarios share: call an operation by id as an account, follow a response's OpenAPI links
// that read (GET), and poll a task until it reaches a final state.
import type { Credentials } from '../../core/client.ts';
import { sleep } from '../../core/rate-limiter.ts';
import type { RunContext } from '../../core/run-context.ts';
import type { AuthMode, Exchange, Expectation, Phase } from '../../core/types.ts';
import { buildRequest, type RequestData } from '../build.ts';

export interface Actor extends Credentials {
  id?: string;
}

export interface CallOptions extends RequestData {
  label: string;
  expectation?: Expectation;
  auth?: AuthMode;
  keep429?: boolean;
  /** The phase the step belongs to (stateful unless the streaming or SSE phase calls it). */
  phase?: Phase;
  /** The named case the step is (ledger rules that only it provokes name it in `cases`). */
  case?: string;
}

export async function call(run: RunContext, actor: Actor, operationId: string, options: CallOptions) {
  const operation = run.spec.byId(operationId);
  if (!run.isSelected(operationId)) return undefined;
  return run.exchange(buildRequest(operation, options, run.audio), {
    phase: options.phase ?? 'stateful',
    label: options.label,
    operation,
    credentials: actor,
    auth: options.auth,
    expectation: options.expectation ?? { kind: 'any' },
    keep429: options.keep429,
    case: options.case,
  });
}

/** Whether every operation a scenario depends on is selected; if not, the scenario is listed as not run. */
export function needs(run: RunContext, what: string, operationIds: string[]): boolean {
  const missing = operationIds.filter((id) => !run.isSelected(id));
  if (missing.length === 0) return true;
  run.recorder.skipped({ what, phase: 'stateful', reason: `--include/--exclude leaves out ${missing.join(', ')}` });
  return false;
}

/** Resolves `$response.body#/a/b` against an exchange. */
function resolveExpression(expression: string, exchange: Exchange): unknown {
  const match = /^\$response\.body#(\/.*)?$/.exec(expression);
  if (!match) return undefined;
  return (match[1] ?? '')
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], exchange.response.body);
}

/** Follows the response's links to GET operations (reads of what was created); returns their exchanges. */
export async function followReadLinks(run: RunContext, actor: Actor, created: Exchange): Promise<Exchange[]> {
  const operation = created.operationId ? run.spec.byId(created.operationId) : undefined;
  const links = operation?.responses[String(created.response.status)]?.links ?? {};
  const exchanges: Exchange[] = [];
  for (const [name, link] of Object.entries(links)) {
    const target = run.spec.operations.find((o) => o.id === link.operationId);
    if (!target || target.method !== 'GET') continue;
    const path: Record<string, string> = {};
    for (const [parameter, expression] of Object.entries(link.parameters ?? {})) {
      const value = resolveExpression(expression, created);
      if (value !== undefined) path[parameter] = String(value);
    }
    const exchange = await call(run, actor, target.id, { label: `link ${name}`, path });
    if (exchange) exchanges.push(exchange);
  }
  return exchanges;
}

const FINAL_V3 = new Set(['completed', 'failed', 'cancelled']);

/**
 * Status reads of a v3 task until a final state (or the run's task timeout); every read is returned. `between` runs
 * after each non-final read (with the number of reads so far and the last one), for observations taken while the
 * task runs.
 */
export async function pollTask(
  run: RunContext,
  actor: Actor,
  id: string,
  between?: (polls: number, last: Exchange) => Promise<void>,
): Promise<Exchange[]> {
  const observations: Exchange[] = [];
  const deadline = Date.now() + run.options.taskTimeout * 1000;
  while (Date.now() < deadline) {
    const exchange = await call(run, actor, 'getTranscriptionStatus', { label: 'poll status', path: { id } });
    if (!exchange) break;
    observations.push(exchange);
    const status = (exchange.response.body as { data?: { status?: string } } | undefined)?.data?.status;
    if (exchange.response.status !== 200 || (status && FINAL_V3.has(status))) break;
    await between?.(observations.length, exchange);
    await sleep(250);
  }
  return observations;
}

export const finalStatusOf = (observations: Exchange[]) =>
  (observations.at(-1)?.response.body as { data?: { status?: string } } | undefined)?.data?.status;

export const bodyOf = <T>(exchange: Exchange | undefined) => exchange?.response.body as T | undefined;
