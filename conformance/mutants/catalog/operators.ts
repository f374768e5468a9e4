// The mutation operators the catalog's areas share: each builds a rewrite of what the server answers (a status
// changed, a field dropped or edited, a header edited, a refusal answered as if it had been let in), and the suite
// arguments that exercise one phase or a few operations.
import { json, withJson, type Memory, type Mutant, type ProxyRequest, type ProxyResponse } from '../proxy.ts';

export type Rewrite = (request: ProxyRequest, response: ProxyResponse, memory: Memory) => ProxyResponse | undefined;

export const on =
  (operationId: string, rewrite: Rewrite): Rewrite =>
  (request, response, memory) =>
    request.operation?.id === operationId ? rewrite(request, response, memory) : undefined;

export const status =
  (from: number, to: number): Rewrite =>
  (_q, r) =>
    r.status === from ? { ...r, status: to } : undefined;

export const body =
  (when: number, edit: (value: Record<string, unknown>) => unknown): Rewrite =>
  (_q, r) => {
    const value = json(r);
    return r.status === when && value && typeof value === 'object'
      ? withJson(r, edit(structuredClone(value) as Record<string, unknown>))
      : undefined;
  };

export const header =
  (edit: (headers: Record<string, string>, response: ProxyResponse) => Record<string, string> | undefined): Rewrite =>
  (_q, r) => {
    const headers = edit({ ...r.headers }, r);
    return headers ? { ...r, headers } : undefined;
  };

/** Answers a refusal that matches `when` with the operation's last successful answer, as if it had been let in. */
export const accept =
  (when: (request: ProxyRequest, response: ProxyResponse, code: unknown) => boolean): Rewrite =>
  (request, response, memory) => {
    const value = json(response) as { error?: unknown } | undefined;
    const code =
      typeof value?.error === 'string' ? value.error : (value?.error as { code?: unknown } | undefined)?.code;
    if (!request.operation || !when(request, response, code)) return undefined;
    const good =
      memory.lastGoodAt(request.method, request.path.split('?')[0]!) ?? memory.lastGood(request.operation.id);
    if (good) return good;
    // nothing let in yet: a bare success of the operation's first 2xx status
    const success = Object.keys(request.operation.responses).find((s) => s.startsWith('2')) ?? '200';
    return withJson(response, {}, Number(success));
  };

export const drop = (key: string) => (value: Record<string, unknown>) => {
  delete value[key];
  return value;
};

export const inData = (edit: (task: Record<string, unknown>) => void) => (value: Record<string, unknown>) => {
  if (value.data && typeof value.data === 'object') edit(value.data as Record<string, unknown>);
  return value;
};

export const errorEdit = (edit: (error: Record<string, unknown>) => void) => (value: Record<string, unknown>) => {
  if (value.error && typeof value.error === 'object') edit(value.error as Record<string, unknown>);
  return value;
};

/** Edits the `balance` object of a price quote (where the suite reads an account's balance and reservations). */
export const withBalance = (value: Record<string, unknown>, edit: (balance: Record<string, unknown>) => void) => {
  if (value.balance && typeof value.balance === 'object') edit(value.balance as Record<string, unknown>);
  return value;
};

/** Rewrites a stream frame of one message type (JSON parsed; the edit changes it in place); other frames pass. */
export const frameOf =
  (type: string, edit: (message: Record<string, unknown>) => void) =>
  (data: string): string => {
    try {
      const message = JSON.parse(data) as Record<string, unknown>;
      if (message.type !== type) return data;
      edit(message);
      return JSON.stringify(message);
    } catch {
      return data;
    }
  };

export const EX = ['--phases', 'examples'];
export const STATEFUL = ['--phases', 'stateful'];
export const only = (...ids: string[]) => ['--include', ids.join(',')];

export type V3Error = { type?: unknown; code?: unknown; message?: unknown; param?: unknown };

export const v3Error = (r: ProxyResponse): V3Error | undefined => {
  const value = json(r) as { error?: unknown } | undefined;
  return value?.error && typeof value.error === 'object' ? (value.error as V3Error) : undefined;
};

/** A v3 error with this code, edited (its code, type) and/or answered with another status. */
export const v3Code =
  (code: string, edit: (error: V3Error) => void, to?: number) =>
  (_q: ProxyRequest, r: ProxyResponse): ProxyResponse | undefined => {
    const error = v3Error(r);
    if (error?.code !== code) return undefined;
    edit(error);
    return withJson(r, { error }, to ?? r.status);
  };

/** An endpoint of the document's list answered with another 2xx than its own. */
export const endpointStatus = (
  operationId: string,
  from: number,
  to: number,
  rules: string[],
  args?: string[],
): Mutant => ({
  name: `${operationId} ${from} → ${to}`,
  category: 'status',
  rules,
  args: args ?? [...EX, ...only(operationId)],
  response: on(operationId, status(from, to)),
});
