// From rule to case: which cases of a run provoked each rule of the ledger that names checks, and with what verdict.
// A rule's scope comes from its `encoded` pointers: a pointer into an operation (`openapi#/paths/{path}/{method}…`)
// claims that operation, and, when it runs on into `requestBody/content/{type}`, `responses/{status}` or
// `responses/{status}/content/{type}`, that request media type, response status or response media type; a pointer
// into a component that operations name by `$ref` (a request body's schema, a response, a parameter) claims its uses,
// any one of which will do. A rule is provoked when, for every pointer that claims scopes, one of its checks judged
// a case in one of them (a pointer elsewhere — a nested schema, the AsyncAPI document — claims no scope of its own:
// any judged case of its checks counts).
// A rule whose checks judge it elsewhere than where it is encoded says so with `provoked_at` (read instead).
// A rule only one specific scenario provokes (an expired ticket, an upload over a limit) names it with `cases`: then
// only observations of those named cases count, so a default case in the same scope cannot credit it, and a rule
// whose cases are opt-in is not run with the option it needs as the reason.
// "Judged" is stricter than "ran": negative_data_rejection judges only schema-invalid data, positive_data_acceptance
// only schema-valid data, error_body_conformance only error answers.
import type { Rule } from './rules.ts';
import type { Expectation, Exchange } from './types.ts';

/** What one check saw of one case (or of one scenario, for the trace and active checks). */
export interface Observation {
  check: string;
  /** The phase whose case it was: the case generator that provoked what the check judged. */
  phase?: string;
  /** The named case it belonged to, if any (what a rule's `cases` match). */
  case?: string;
  operation?: string;
  /** The request body's media type (`application/json`, `multipart/form-data`), none without a body. */
  requestMedia?: string;
  status?: number;
  /** The answer's media type without parameters. */
  responseMedia?: string;
  runs: number;
  failed: number;
}

export interface Scope {
  operation: string;
  requestMedia?: string;
  status?: number;
  responseMedia?: string;
}

export type RuleVerdict = 'passed' | 'failed' | 'not_run';

export interface RuleResult {
  id: string;
  checks: string[];
  verdict: RuleVerdict;
  /** Cases of the rule's checks in its scopes. */
  cases: number;
  failed: number;
  /** Why the rule was not provoked (not_run, or failed in one scope and not provoked in another). */
  reason?: string;
  /** The operations its scopes claim (none: any case of its checks). */
  operations: string[];
  /** The phases (case generators) whose cases provoked it. */
  phases: string[];
}

/**
 * The operations of the document by `{path} {method}`, to turn a pointer into an operationId; and for each component
 * a request body, a response or a parameter names by `$ref` (`/components/schemas/X`), the scopes it is used in.
 */
export interface OperationIndex {
  byPath: Map<string, string>;
  components: Map<string, Scope[]>;
}

type Json = Record<string, unknown>;
const refOf = (value: unknown) =>
  value && typeof value === 'object' && typeof (value as Json).$ref === 'string'
    ? ((value as Json).$ref as string).replace(/^#/, '')
    : undefined;

/** Built from the document as written (before its `$ref`s are inlined: they are what ties a component to a use). */
export function operationIndex(openapi: Json): OperationIndex {
  const index: OperationIndex = { byPath: new Map(), components: new Map() };
  const use = (component: string | undefined, scope: Scope) => {
    if (component) index.components.set(component, [...(index.components.get(component) ?? []), scope]);
  };
  const responses = ((openapi.components as Json | undefined)?.responses ?? {}) as Json;
  for (const [path, item] of Object.entries((openapi.paths ?? {}) as Record<string, Json>))
    for (const [method, value] of Object.entries(item)) {
      const operation = value as Json;
      if (!operation || typeof operation !== 'object' || typeof operation.operationId !== 'string') continue;
      const id = operation.operationId;
      index.byPath.set(`${path} ${method}`, id);
      const body = (operation.requestBody ?? {}) as { content?: Record<string, Json> };
      for (const [media, content] of Object.entries(body.content ?? {}))
        use(refOf(content.schema), { operation: id, requestMedia: media });
      for (const [status, raw] of Object.entries((operation.responses ?? {}) as Json)) {
        if (!/^\d{3}$/.test(status)) continue;
        const named = refOf(raw);
        use(named, { operation: id, status: Number(status) });
        const response = (named ? responses[named.split('/').pop()!] : raw) as { content?: Record<string, Json> };
        for (const [media, content] of Object.entries(response?.content ?? {}))
          use(refOf(content.schema), { operation: id, status: Number(status), responseMedia: media });
      }
      for (const parameter of [
        ...((item.parameters as unknown[]) ?? []),
        ...((operation.parameters as unknown[]) ?? []),
      ])
        use(refOf(parameter), { operation: id });
    }
  return index;
}

const unescape = (segment: string) => decodeURIComponent(segment).replace(/~1/g, '/').replace(/~0/g, '~');

/**
 * The scopes a pointer claims, any one of which provokes it: one for a pointer into an operation, every use of a
 * component the operations name by `$ref`; undefined when it points elsewhere (a nested schema, the AsyncAPI).
 */
export function scopesOf(pointer: string, operations: OperationIndex): Scope[] | undefined {
  const component = /^openapi#(\/components\/[^/]+\/[^/]+)/.exec(pointer);
  if (component) return operations.components.get(unescape(component[1]!));
  const scope = scopeOf(pointer, operations);
  return scope && [scope];
}

/** The scope a pointer into an operation claims, or undefined when it points outside the operations. */
export function scopeOf(pointer: string, operations: OperationIndex): Scope | undefined {
  const match = /^openapi#\/paths\/(.+)$/.exec(pointer);
  if (!match) return undefined;
  const [path, method, ...rest] = match[1]!.split('/').map(unescape);
  const operation = operations.byPath.get(`${path} ${method}`);
  if (!operation) return undefined;
  const scope: Scope = { operation };
  if (rest[0] === 'requestBody' && rest[1] === 'content' && rest[2]) scope.requestMedia = rest[2];
  if (rest[0] === 'responses' && rest[1] && /^\d{3}$/.test(rest[1])) {
    scope.status = Number(rest[1]);
    if (rest[2] === 'content' && rest[3]) scope.responseMedia = rest[3];
  }
  return scope;
}

/** Whether a response check had something to judge in this case (see the header). */
export function judges(check: string, expectation: Expectation | undefined, exchange: Exchange | undefined): boolean {
  if (!exchange) return true;
  if (check === 'negative_data_rejection') return expectation?.kind === 'negative';
  if (check === 'positive_data_acceptance') return expectation?.kind === 'positive';
  if (check === 'error_body_conformance') return exchange.response.status >= 400;
  return true;
}

/**
 * The exchanges a scenario's trace holds (its probes, the created resource, …): a trace check judged each of them,
 * so each is a case of that check in its operation's scope. Depth-limited: traces are small records.
 */
export function exchangesIn(value: unknown, depth = 4): Exchange[] {
  if (!value || typeof value !== 'object' || depth < 0) return [];
  const candidate = value as Partial<Exchange>;
  if (candidate.request && candidate.response && typeof candidate.response.status === 'number')
    return [value as Exchange];
  const children = Array.isArray(value) ? value : Object.values(value);
  return children.flatMap((child) => exchangesIn(child, depth - 1));
}

export function requestMediaOf(exchange: Exchange | undefined): string | undefined {
  const body = exchange?.request.body;
  if (!body) return undefined;
  if (body.kind === 'multipart') return 'multipart/form-data';
  if (body.kind === 'json') return 'application/json';
  return body.contentType;
}

const inScope = (o: Observation, scope: Scope) =>
  o.operation === scope.operation &&
  (scope.requestMedia === undefined || o.requestMedia === scope.requestMedia) &&
  (scope.status === undefined || o.status === scope.status) &&
  (scope.responseMedia === undefined || o.responseMedia === scope.responseMedia);

const describe = (scope: Scope) =>
  [
    scope.operation,
    scope.requestMedia && `request ${scope.requestMedia}`,
    scope.status !== undefined && `answer ${scope.status}`,
    scope.responseMedia && `as ${scope.responseMedia}`,
  ]
    .filter(Boolean)
    .join(', ');

export interface TraceContext {
  /** Checks the run ran (all, or those of --checks). */
  selectedChecks: Set<string>;
  operations: OperationIndex;
  /** Operations the run covered (--include/--exclude). */
  selectedOperations: Set<string>;
  /** Not-run reasons by operation (501, missing credentials). */
  notRunByOperation: Map<string, string>;
  /** Not-run reasons by phase (a chat engine that answers 503 leaves the sse phase nothing to judge). */
  notRunByPhase: Map<string, string>;
  /** Named cases this run left out, with why (`needs --slow`). */
  casesNotRun?: Map<string, string>;
}

/** Checks that judge only what one phase provokes. */
const PHASE_OF_CHECK: Record<string, string> = {
  sse_conformance: 'sse',
  stream_protocol_conformance: 'streaming',
};

/** The verdict of every rule that names checks, from what the checks of a run judged. */
export function traceRules(rules: Rule[], observations: Observation[], context: TraceContext): RuleResult[] {
  const byCheck = new Map<string, Observation[]>();
  for (const o of observations) byCheck.set(o.check, [...(byCheck.get(o.check) ?? []), o]);
  return rules
    .filter((rule) => rule.checks.length > 0)
    .map((rule): RuleResult => {
      // one list of alternatives per pointer that claims a scope: each pointer must be provoked in one of them
      const claims = (rule.provoked_at ?? rule.encoded)
        .map((pointer) => scopesOf(pointer, context.operations))
        .filter((alternatives): alternatives is Scope[] => alternatives !== undefined && alternatives.length > 0);
      const scopes = claims.flat();
      const operations = [...new Set(scopes.map((scope) => scope.operation))];
      const base = { id: rule.id, checks: rule.checks, cases: 0, failed: 0, operations, phases: [] as string[] };
      const checks = rule.checks.filter((check) => context.selectedChecks.has(check));
      if (checks.length === 0) return { ...base, verdict: 'not_run', reason: `--checks leaves out ${rule.checks}` };
      const named = rule.cases && new Set(rule.cases);
      const seen = checks
        .flatMap((check) => byCheck.get(check) ?? [])
        .filter((o) => !named || (o.case !== undefined && named.has(o.case)));
      const relevant = scopes.length ? seen.filter((o) => scopes.some((scope) => inScope(o, scope))) : seen;
      const cases = relevant.reduce((sum, o) => sum + o.runs, 0);
      const failed = relevant.reduce((sum, o) => sum + o.failed, 0);
      base.phases = [...new Set(relevant.flatMap((o) => (o.phase ? [o.phase] : [])))];
      const missing = claims.find(
        (alternatives) => !seen.some((o) => alternatives.some((scope) => inScope(o, scope))),
      )?.[0];
      if (missing || cases === 0) {
        const operation = missing?.operation;
        const phaseReason = checks.map((check) => context.notRunByPhase.get(PHASE_OF_CHECK[check] ?? '')).find(Boolean);
        const answered = [
          ...new Set(observations.filter((o) => o.operation === operation && o.status).map((o) => o.status)),
        ].sort();
        const optIn = rule.cases?.map((name) => context.casesNotRun?.get(name));
        const why =
          cases === 0 && optIn?.length && optIn.every(Boolean)
            ? `its case${optIn.length > 1 ? 's' : ''} ${rule.cases!.join(', ')} did not run: ${[...new Set(optIn)].join('; ')}`
            : operation && !context.selectedOperations.has(operation)
              ? `${operation} is not in this run (--include/--exclude)`
              : operation && context.notRunByOperation.has(operation)
                ? `${operation}: ${context.notRunByOperation.get(operation)}`
                : missing
                  ? `no case ${rule.cases ? `named ${rule.cases.join(' or ')} ` : ''}of ${describe(missing)} judged by ${checks.join(' or ')}` +
                    (answered.length ? ` (it answered ${answered.join(', ')})` : '')
                  : phaseReason
                    ? `${checks.join(' and ')} judged no case: ${phaseReason}`
                    : `${checks.join(' and ')} judged no case`;
        return { ...base, cases, failed, verdict: failed > 0 ? 'failed' : 'not_run', reason: why };
      }
      return { ...base, cases, failed, verdict: failed > 0 ? 'failed' : 'passed' };
    });
}

export interface RuleCoverage {
  rules: number;
  passed: number;
  failed: number;
  not_run: number;
}

export function ruleCoverage(results: RuleResult[]): RuleCoverage {
  const coverage: RuleCoverage = { rules: results.length, passed: 0, failed: 0, not_run: 0 };
  for (const result of results) coverage[result.verdict] += 1;
  return coverage;
}

export const ruleCoverageLine = (c: RuleCoverage) =>
  `Rules: ${c.rules} with checks: ${c.passed + c.failed} provoked (${c.passed} passed, ${c.failed} failed), ` +
  `${c.not_run} not run`;

/** The rules a failure of `check` on `operation` breaks: the rules of that check whose scope holds the operation. */
export const rulesBrokenBy = (results: RuleResult[] | undefined, check: string, operation: string) =>
  (results ?? [])
    .filter((r) => r.checks.includes(check) && (r.operations.length === 0 || r.operations.includes(operation)))
    .map((r) => r.id);
