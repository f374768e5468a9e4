// What the dispatcher needs to know about an operation beyond its route, read from the contract once when the router
// is built: its security scheme, the media types of its body, whether it takes an Idempotency-Key, and which header
// and query parameters validation looks at. Reading these from the operation object on every request (a flatMap over
// `security`, `Object.keys` of the body's content, a scan of the parameters) was per-request work that never changes.
import { schemeOf, type SecurityScheme } from './auth.ts';
import type { ContractOperation } from './contract-operation.ts';
import type { OperationId } from './operation.ts';

export interface OperationPlan {
  operationId: OperationId;
  scheme: SecurityScheme;
  /** The media types the request body is declared with (none when the operation takes no body). */
  mediaTypes: readonly string[];
  /** The body may be JSON: it is then read whole before authentication (a v2 signature may cover it). */
  acceptsJson: boolean;
  acceptsMultipart: boolean;
  acceptsIdempotencyKey: boolean;
  /** A success answer declares `Cache-Control` (its only value is `no-store`): it carries a secret or a signed link. */
  noStore: boolean;
  /**
   * The declared header parameters, lower-cased as Node gives header names. Validation looks at these only (the
   * contract's header schemas allow any other header), so only these are copied for it.
   */
  headerParams: readonly string[];
  /** Query parameters declared as arrays: a single `?x=a` arrives as a string and is wrapped, as openapi-backend does. */
  arrayQueryParams: readonly string[];
}

type Parameter = { name: string; in: string; schema?: { type?: unknown } };

export function planOperation(operation: ContractOperation): OperationPlan {
  const mediaTypes = Object.keys((operation.requestBody as { content?: object } | undefined)?.content ?? {});
  // References are inlined when the contract is loaded (contract.ts), so every parameter is an object of its own.
  const parameters = (operation.parameters ?? []) as Parameter[];
  return {
    operationId: operation.operationId as OperationId,
    scheme: schemeOf(operation.security),
    mediaTypes,
    acceptsJson: mediaTypes.includes('application/json'),
    acceptsMultipart: mediaTypes.includes('multipart/form-data'),
    acceptsIdempotencyKey: parameters.some((p) => p.name === 'Idempotency-Key'),
    noStore: Object.entries(operation.responses ?? {}).some(
      ([status, response]) =>
        status.startsWith('2') &&
        (response as { headers?: object }).headers !== undefined &&
        'Cache-Control' in (response as { headers: object }).headers,
    ),
    headerParams: parameters.filter((p) => p.in === 'header').map((p) => p.name.toLowerCase()),
    arrayQueryParams: parameters.filter((p) => p.in === 'query' && p.schema?.type === 'array').map((p) => p.name),
  };
}
