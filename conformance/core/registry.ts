// Checks registered by their snake_case name, schemathesis style. Three kinds:
// - response checks look at one exchange (every exchange of every phase goes through all of them);
// - active checks send requests of their own derived from an operation (through a `send` given to them, which
//   the unit tests replace with crafted responses);
// - trace checks judge what a scenario recorded (status polls, ledger entries, webhook deliveries, stream frames).
import type { Client, SendOptions } from './client.ts';
import type { Operation, Spec } from './spec.ts';
import type { Exchange, Expectation, Finding, HttpRequest } from './types.ts';

export interface ResponseContext {
  spec: Spec;
  exchange: Exchange;
  operation: Operation | undefined;
  expectation: Expectation;
}

export type Send = (request: HttpRequest, options: Omit<SendOptions, 'phase'> & { label: string }) => Promise<Exchange>;

export interface ActiveContext {
  spec: Spec;
  operation: Operation;
  send: Send;
  client: Pick<Client, 'authHeaders' | 'main'>;
  /** A request of the operation that the server accepted (or at least answered without a 5xx), when one exists. */
  sample?: HttpRequest;
}

export type CheckResult = Finding | Finding[] | undefined | void;

export type ResponseCheck = (ctx: ResponseContext) => CheckResult;
export type ActiveCheck = (ctx: ActiveContext) => Promise<CheckResult>;
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each trace check declares its own trace type
export type TraceCheck = (trace: any, spec: Spec) => CheckResult;

export type RegisteredCheck =
  | { name: string; kind: 'response'; run: ResponseCheck }
  | { name: string; kind: 'active'; run: ActiveCheck }
  | { name: string; kind: 'trace'; run: TraceCheck };

const registry = new Map<string, RegisteredCheck>();

export function registerCheck<K extends RegisteredCheck['kind']>(
  name: string,
  kind: K,
  run: Extract<RegisteredCheck, { kind: K }>['run'],
): void {
  if (registry.has(name)) throw new Error(`check ${name} is registered twice`);
  registry.set(name, { name, kind, run } as RegisteredCheck);
}

export function registeredChecks(): RegisteredCheck[] {
  return [...registry.values()];
}

export function checkNamed(name: string): RegisteredCheck {
  const check = registry.get(name);
  if (!check) throw new Error(`unknown check ${name} (known: ${[...registry.keys()].join(', ')})`);
  return check;
}

export const asList = (result: CheckResult): Finding[] => (!result ? [] : Array.isArray(result) ? result : [result]);
