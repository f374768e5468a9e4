// The documents under test: the bundled OpenAPI and AsyncAPI files (or any given with --spec), every local `$ref`
// inlined, the operations listed with what the suite needs, and one Ajv 2020 (with formats) for all validation.
import { readFileSync } from 'node:fs';
import type { Ajv2020, ValidateFunction } from 'ajv/dist/2020.js';
import { createContractAjv, inlineReferences } from './contract-ajv.ts';

export type Schema = Record<string, unknown>;

export interface ParameterSpec {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  schema?: Schema;
  example?: unknown;
  examples?: Record<string, { value: unknown }>;
}

export interface MediaSpec {
  schema?: Schema;
  examples?: Record<string, { summary?: string; value: unknown }>;
  example?: unknown;
}

export interface ResponseSpec {
  description?: string;
  headers?: Record<string, { required?: boolean; schema?: Schema }>;
  content?: Record<string, MediaSpec>;
  links?: Record<string, { operationId: string; parameters?: Record<string, string> }>;
}

export type SecurityKind = 'bearer' | 'hmac' | 'admin' | 'none';

export interface Operation {
  id: string;
  method: string;
  path: string;
  tags: string[];
  security: SecurityKind;
  parameters: ParameterSpec[];
  requestBody?: { required?: boolean; content: Record<string, MediaSpec> };
  responses: Record<string, ResponseSpec>;
  limits: Record<string, number>;
}

export interface Spec {
  openapi: Record<string, unknown>;
  asyncapi: Record<string, unknown> | undefined;
  operations: Operation[];
  schemas: Record<string, Schema>;
  /** Webhook payload schemas by event type (`transcription.completed`). */
  webhooks: Record<string, Schema>;
  /** AsyncAPI message payloads by message name (`session_started`). */
  messages: Record<string, Schema>;
  /** AsyncAPI close codes documented for the stream (code → meaning). */
  closeCodes: number[];
  requestsPerSecond: number;
  validator(key: string, schema: Schema): ValidateFunction;
  /** The operation a method and path reach (a literal path wins over a templated one). */
  match(method: string, path: string): Operation | undefined;
  byId(id: string): Operation;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

function securityOf(operation: Record<string, unknown>, root: Record<string, unknown>): SecurityKind {
  const requirements = (operation.security ?? root.security ?? []) as Array<Record<string, unknown>>;
  const names = requirements.flatMap((r) => Object.keys(r));
  if (names.includes('BearerAuth')) return 'bearer';
  if (names.includes('PublicKey')) return 'hmac';
  if (names.includes('AdminToken')) return 'admin';
  return 'none';
}

export function loadSpec(openapiPath: string, asyncapiPath?: string): Spec {
  const openapi = inlineReferences(JSON.parse(readFileSync(openapiPath, 'utf8')) as Record<string, unknown>);
  const asyncapi = asyncapiPath
    ? inlineReferences(JSON.parse(readFileSync(asyncapiPath, 'utf8')) as Record<string, unknown>)
    : undefined;
  const operations: Operation[] = [];
  const paths = openapi.paths as Record<string, Record<string, Record<string, unknown>>>;
  for (const [path, item] of Object.entries(paths)) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      operations.push({
        id: op.operationId as string,
        method: method.toUpperCase(),
        path,
        tags: (op.tags as string[]) ?? [],
        security: securityOf(op, openapi),
        parameters: [
          ...((item.parameters as unknown as ParameterSpec[]) ?? []),
          ...((op.parameters as ParameterSpec[]) ?? []),
        ],
        requestBody: op.requestBody as Operation['requestBody'],
        responses: op.responses as Record<string, ResponseSpec>,
        limits: (op['x-limits'] as Record<string, number>) ?? {},
      });
    }
  }
  const components = (openapi.components ?? {}) as { schemas?: Record<string, Schema> };
  const webhooks: Record<string, Schema> = {};
  for (const [event, item] of Object.entries((openapi.webhooks ?? {}) as Record<string, Record<string, unknown>>)) {
    const post = item.post as { requestBody?: { content?: Record<string, MediaSpec> } } | undefined;
    const schema = post?.requestBody?.content?.['application/json']?.schema;
    if (schema) webhooks[event] = schema;
  }
  const messages: Record<string, Schema> = {};
  let closeCodes: number[] = [];
  if (asyncapi) {
    const found = ((asyncapi.components as Record<string, unknown>)?.messages ?? {}) as Record<
      string,
      { payload?: Schema }
    >;
    for (const [name, message] of Object.entries(found)) if (message.payload) messages[name] = message.payload;
    // Close codes are the `close_code` enum of the error frame (the document lists them there, not only in prose).
    const error = messages.error as { properties?: Record<string, Schema> } | undefined;
    const enumOf = (schema: Schema | undefined): number[] => {
      if (!schema) return [];
      if (Array.isArray(schema.enum)) return schema.enum.filter((v): v is number => typeof v === 'number');
      const variants = [...((schema.oneOf as Schema[]) ?? []), ...((schema.anyOf as Schema[]) ?? [])];
      return variants.flatMap((v) => (typeof v.const === 'number' ? [v.const] : enumOf(v)));
    };
    closeCodes = enumOf(error?.properties?.close_code);
  }
  const ajv: Ajv2020 = createContractAjv({ allErrors: true });
  const compiled = new Map<string, ValidateFunction>();
  const routes = operations.map((operation) => ({
    operation,
    literal: !operation.path.includes('{'),
    pattern: new RegExp(
      `^${operation.path
        .split(/(\{[^}]+\})/)
        .map((part) => (part.startsWith('{') ? '[^/]+' : part.replace(/[.*+?^$()|[\]\\]/g, '\\$&')))
        .join('')}$`,
    ),
  }));
  const rate = openapi['x-rate-limit'] as { requests_per_second?: number } | undefined;
  return {
    openapi,
    asyncapi,
    operations,
    schemas: components.schemas ?? {},
    webhooks,
    messages,
    closeCodes,
    requestsPerSecond: rate?.requests_per_second ?? 10,
    validator(key, schema) {
      let validate = compiled.get(key);
      if (!validate) {
        validate = ajv.compile(schema);
        compiled.set(key, validate);
      }
      return validate;
    },
    match(method, path) {
      const pathname = path.split('?')[0]!;
      const candidates = routes.filter((r) => r.operation.method === method.toUpperCase() && r.pattern.test(pathname));
      return (candidates.find((r) => r.literal) ?? candidates[0])?.operation;
    },
    byId(id) {
      const operation = operations.find((o) => o.id === id);
      if (!operation) throw new Error(`the document has no operation ${id}`);
      return operation;
    },
  };
}

/** Ajv's errors as one short line. */
export function describeErrors(errors: ValidateFunction['errors']): string {
  return (errors ?? [])
    .slice(0, 3)
    .map((e) => `${e.instancePath || '(root)'} ${e.message ?? e.keyword}`)
    .join('; ');
}

/**
 * v2 and v1's usage statistics answer errors in the validation body; everything else in the v3 envelope (a `/v1`
 * path outside the usage statistics is an OpenAI-style client's: the contract gives it the v3 body).
 */
export const errorEnvelopeOf = (path: string): 'V2ErrorResponse' | 'ErrorResponse' =>
  path.startsWith('/v2/') || path.startsWith('/v1/billing/') ? 'V2ErrorResponse' : 'ErrorResponse';
