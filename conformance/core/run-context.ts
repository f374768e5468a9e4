// One run of the suite: the documents, the client, what was found, and the single path every case takes —
// send, treat 501 not_implemented as "not run", count the case, run every selected response check on it.
import { randomUUID } from 'node:crypto';
import type { AudioFixture } from './audio.ts';
import { type Client, type Credentials, MissingCredentials } from './client.ts';
import type { RunOptions } from './options.ts';
import type { Recorder } from './recorder.ts';
import { exchangesIn } from './rule-trace.ts';
import { asList, checkNamed, registeredChecks, type ActiveContext, type TraceCheck } from './registry.ts';
import type { Operation, Spec } from './spec.ts';
import type { AuthMode, Exchange, Expectation, HttpRequest, Phase } from './types.ts';

export interface CaseOptions {
  phase: Phase;
  label: string;
  operation: Operation | undefined;
  expectation?: Expectation;
  auth?: AuthMode;
  credentials?: Credentials;
  keep429?: boolean;
  /** The named case this exchange belongs to (a ledger rule with `cases` is provoked only by its own cases). */
  case?: string;
}

export interface Accounts {
  main: Credentials & { id?: string };
  /** A second account (for isolation), when an admin token allows provisioning. */
  provision?: (balance: number, label: string) => Promise<Credentials & { id: string }>;
}

export class RunContext {
  /** A request of each operation the server answered without 401 or a 5xx (2xx preferred). */
  readonly samples = new Map<string, { request: HttpRequest; status: number }>();
  private readonly activeDone = new Set<string>();
  /** Each generating phase's own throwaway account when they run side by side (each under its own rate limit). */
  readonly phaseCredentials = new Map<Phase, Credentials>();

  constructor(
    readonly spec: Spec,
    readonly client: Client,
    readonly recorder: Recorder,
    readonly options: RunOptions,
    readonly audio: AudioFixture,
    readonly accounts: Accounts,
  ) {}

  checkEnabled(name: string): boolean {
    return !this.options.checks || this.options.checks.includes(name);
  }

  /** The operations the run covers (--include/--exclude by operationId or tag). */
  operations(): Operation[] {
    const matches = (operation: Operation, names: string[]) =>
      names.includes(operation.id) || operation.tags.some((tag) => names.includes(tag));
    return this.spec.operations.filter(
      (o) =>
        (this.options.include.length === 0 || matches(o, this.options.include)) && !matches(o, this.options.exclude),
    );
  }

  /** Lists an operation that answered 501 as not run in this phase too; true when it did. */
  skipUnimplemented(operation: Operation, phase: Phase): boolean {
    const reason = this.recorder.unimplemented.get(operation.id);
    if (reason === undefined) return false;
    this.recorder.skipped({ what: operation.id, operation: operation.id, phase, reason: '501 not implemented' });
    return true;
  }

  isSelected(operationId: string): boolean {
    return this.operations().some((o) => o.id === operationId);
  }

  /** Sends one case and runs every response check on it; undefined when it could not be sent. */
  async exchange(request: HttpRequest, options: CaseOptions): Promise<Exchange | undefined> {
    const operation = options.operation;
    if (operation && this.recorder.unimplemented.has(operation.id)) return undefined;
    let exchange: Exchange;
    try {
      exchange = await this.client.send(request, {
        phase: options.phase,
        label: options.label,
        operationId: operation?.id,
        security: operation?.security ?? 'none',
        auth: options.auth,
        credentials: options.credentials ?? this.phaseCredentials.get(options.phase),
        keep429: options.keep429,
      });
    } catch (error) {
      if (error instanceof MissingCredentials) {
        this.recorder.skipped({ what: operation?.id ?? request.path, phase: options.phase, reason: error.message });
        return undefined;
      }
      this.recorder.countCase(options.phase);
      this.recorder.checked(
        'not_a_server_error',
        [
          {
            title: 'Network error',
            message: `${request.method} ${request.path}: ${networkFailure(error)}`,
            severity: 'critical',
          },
        ],
        { phase: options.phase, operation: operation?.id },
      );
      return undefined;
    }
    // 501 is the server saying it does not implement the operation (yet): not run, never passed or failed
    if (exchange.response.status === 501 && operation) {
      this.recorder.unimplemented.set(operation.id, options.phase);
      this.recorder.skipped({
        what: operation.id,
        operation: operation.id,
        phase: options.phase,
        reason: `501 ${errorCode(exchange.response.body) ?? 'not implemented'}`,
      });
      return undefined;
    }
    this.recorder.countCase(
      options.phase,
      `${operation?.id ?? request.path} ${options.label} → ${exchange.response.status} (${Math.round(exchange.response.elapsedMs)} ms)`,
    );
    const expectation = options.expectation ?? { kind: 'any' };
    for (const check of registeredChecks()) {
      if (check.kind !== 'response' || !this.checkEnabled(check.name)) continue;
      const findings = asList(check.run({ spec: this.spec, exchange, operation, expectation }));
      this.recorder.checked(check.name, findings, {
        phase: options.phase,
        operation: operation?.id,
        exchange,
        expectation,
        case: options.case,
      });
    }
    if (operation) this.rememberSample(operation.id, request, exchange.response.status);
    return exchange;
  }

  private rememberSample(operationId: string, request: HttpRequest, status: number): void {
    if (status === 401 || status >= 500 || status === 429) return;
    const known = this.samples.get(operationId);
    const rank = (s: number) => (s < 300 ? 2 : 1);
    if (!known || rank(status) > rank(known.status)) this.samples.set(operationId, { request, status });
  }

  /** Runs a trace check by name on what a scenario recorded (`caseName`: the named case the scenario is). */
  trace(name: string, trace: unknown, phase: Phase, operation?: string, caseName?: string): void {
    if (!this.checkEnabled(name)) return;
    const check = checkNamed(name);
    if (check.kind !== 'trace') throw new Error(`${name} is not a trace check`);
    const findings = asList((check.run as TraceCheck)(trace, this.spec));
    this.recorder.checked(name, findings, { phase, operation, judged: exchangesIn(trace), case: caseName });
  }

  /** The active checks (ignored_auth, unsupported_method, missing_required_header) once per operation. */
  async activeChecks(operation: Operation, phase: Phase): Promise<void> {
    const sample = this.samples.get(operation.id);
    if (!sample || this.activeDone.has(operation.id) || this.recorder.unimplemented.has(operation.id)) return;
    this.activeDone.add(operation.id);
    let sent: Exchange[] = [];
    const context: ActiveContext = {
      spec: this.spec,
      operation,
      client: this.client,
      sample: sample.request,
      send: async (request, options) => {
        const exchange = await this.exchange(request, {
          phase,
          label: options.label,
          // a probe with another method reaches another operation, or none (405)
          operation: this.spec.match(request.method, request.path),
          auth: options.auth,
          expectation: { kind: 'any' },
        });
        if (!exchange) throw new NotSent(`${options.label} could not be sent`);
        sent.push(exchange);
        return exchange;
      },
    };
    for (const check of registeredChecks()) {
      if (check.kind !== 'active' || !this.checkEnabled(check.name)) continue;
      // unsupported_method once per path
      if (
        check.name === 'unsupported_method' &&
        this.spec.operations.find((o) => o.path === operation.path) !== operation
      )
        continue;
      sent = [];
      try {
        const findings = asList(await check.run(context));
        this.recorder.checked(check.name, findings, { phase, operation: operation.id, judged: sent });
      } catch (error) {
        if (!(error instanceof NotSent)) throw error;
      }
    }
  }
}

export class NotSent extends Error {
  override name = 'NotSent';
}

export function errorCode(body: unknown): string | undefined {
  const error = (body as { error?: unknown } | undefined)?.error;
  if (typeof error === 'string') return error;
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
}

export const freshId = () => randomUUID();

/**
 * What a request that got no answer ran into: fetch's own message ("fetch failed") says nothing, its cause says what
 * happened to the connection (refused, reset, closed by the other side, a timeout).
 */
function networkFailure(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const cause = error instanceof Error ? (error.cause as { code?: string; message?: string } | undefined) : undefined;
  if (!cause) return message;
  return `${message} (${[cause.code, cause.message].filter(Boolean).join(': ')})`;
}
