// The suite's vocabulary: phases, requests and responses as sent and received, failures and not-run items.
export const PHASES = ['examples', 'coverage', 'fuzzing', 'negative', 'stateful', 'streaming', 'sse'] as const;
export type Phase = (typeof PHASES)[number];

export type Severity = 'critical' | 'high' | 'medium' | 'low';

export type FormPart =
  { name: string; value: string } | { name: string; file: string; filename: string; contentType: string };

export type RequestBody =
  | { kind: 'json'; value: unknown }
  | { kind: 'raw'; text: string; contentType?: string }
  | { kind: 'multipart'; parts: FormPart[] };

/** Which credentials a request carries: the operation's own scheme, none, or exactly these headers. */
export type AuthMode = 'default' | 'none' | { headers: Record<string, string> };

export interface HttpRequest {
  method: string;
  /** Path with the query string, relative to the base URL. */
  path: string;
  headers: Record<string, string>;
  body?: RequestBody;
}

export interface HttpResponse {
  status: number;
  /** Lower-case header names. */
  headers: Record<string, string>;
  text: string;
  /** The parsed JSON body, undefined when the body is not JSON. */
  body: unknown;
  elapsedMs: number;
}

export interface Exchange {
  operationId: string | undefined;
  phase: Phase;
  label: string;
  /** The request as sent (credentials applied), with the absolute URL, so it can be replayed with curl. */
  request: HttpRequest & { url: string };
  response: HttpResponse;
}

/** What the case expects from the server: schema-valid data, schema-invalid data, or no claim. */
export type Expectation =
  | { kind: 'positive' }
  | { kind: 'negative'; reason: string; field?: string; location?: 'body' | 'query' | 'header' | 'path' }
  | { kind: 'any' }
  /**
   * A scenario step whose outcome the document fixes (a blocked account's 403, an empty balance's 402), and the
   * error code (v3 `error.code`, v2 `error`) when the document fixes that too.
   */
  | { kind: 'status'; statuses: number[]; reason: string; code?: string };

export interface Failure {
  check: string;
  operation: string;
  title: string;
  message: string;
  severity: Severity;
  phase?: Phase;
  exchange?: Exchange;
}

/** A finding without a request to replay (webhook deliveries, stream frames) carries its evidence as text. */
export type Finding = Omit<Failure, 'check' | 'operation' | 'phase'> & { operation?: string; evidence?: string };

export interface NotRun {
  what: string;
  operation?: string;
  phase?: Phase;
  reason: string;
  /** The named case that did not run for this reason: its rules are then not run with it. */
  case?: string;
}
