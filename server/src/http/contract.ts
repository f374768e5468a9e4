// The contract at run time: generated/openapi.json loaded into openapi-backend for routing and request/response
// validation with Ajv 2020 (openapi-backend's own Ajv is draft-07 and would silently ignore 2020-12 keywords, and its
// definition check uses the OpenAPI 3.0 meta-schema, so the document is linted by Redocly instead).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { OpenAPIBackend, type Document } from 'openapi-backend';
import { createContractAjv, inlineReferences } from '../../../conformance/core/contract-ajv.ts';
import { errors } from './api-error.ts';
import type { ContractOperation } from './contract-operation.ts';
import { planOperation, type OperationPlan } from './operation-plan.ts';

// The schema helpers live with the conformance suite, which is published without server code.
export { createContractAjv, inlineReferences };

export type { ContractOperation } from './contract-operation.ts';

export function loadContractDocument(): Document {
  const path = fileURLToPath(new URL('../../../generated/openapi.json', import.meta.url));
  return JSON.parse(readFileSync(path, 'utf8')) as Document;
}

let shared: Promise<OpenAPIBackend> | undefined;

/**
 * The contract of generated/openapi.json, built once per process (the instance holds no per-app state: it only routes
 * and validates).
 */
export function sharedContract(): Promise<OpenAPIBackend> {
  shared ??= createContract();
  return shared;
}

export async function createContract(document: Document = loadContractDocument()): Promise<OpenAPIBackend> {
  const api = new OpenAPIBackend({
    definition: inlineReferences(document),
    validate: true,
    // Validators are compiled on an operation's first use instead of all at start: a start takes 0.1 s of CPU
    // instead of 5 (most of it response validators, which production does not use); warmRequestValidators takes
    // the first request's ~25 ms away where that matters.
    quick: true,
    strict: false,
    coerceTypes: true,
    customizeAjv: (_original, _options, context) =>
      createContractAjv({
        coerceTypes: context === 'paramsValidator' || context === 'responseHeadersValidator',
      }) as never,
  });
  // openapi-backend checks definitions against the OpenAPI 3.0 meta-schema; ours is 3.1 and linted by Redocly.
  api.validateDefinition = () => api.definition;
  // In quick mode it also parses the document again in the background (≈ 0.1 s of CPU per process) for nothing it
  // reads afterwards: the definition it routes and validates by is the one given, already free of references.
  api.loadDocument = async () => (api.document = api.inputDocument as Document);
  await api.init();
  return api;
}

export interface RouteMatch {
  operation: ContractOperation;
  plan: OperationPlan;
  params: Record<string, string>;
}

export interface Router {
  /** `method` as Node gives it (upper-case). */
  match(method: string, path: string): RouteMatch | undefined;
  /** Methods that the path accepts (for 405 with Allow). */
  methodsOf(path: string): string[];
}

/**
 * Routing compiled once from the contract: one anchored regular expression per operation, literal paths before
 * templated ones (so `/v2/transcriptions/calculate` wins over `/v2/transcriptions/{id}`). openapi-backend's
 * matchOperation normalises and scans every operation on each call (≈ 180 µs here); this is a few µs. Each route
 * carries its operation's plan (operation-plan.ts), so nothing about the operation is worked out per request.
 */
export function createRouter(api: OpenAPIBackend): Router {
  const routes = api
    .getOperations()
    .map((operation) => {
      const names: string[] = [];
      const source = operation.path
        .split(/(\{[^}]+\})/)
        .map((part) => {
          const name = /^\{([^}]+)\}$/.exec(part)?.[1];
          if (name) {
            names.push(name);
            return '([^/]+)';
          }
          return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
        })
        .join('');
      return {
        operation: operation as ContractOperation,
        plan: planOperation(operation as ContractOperation),
        method: operation.method.toUpperCase(),
        names,
        regex: new RegExp(`^${source}/?$`),
      };
    })
    .sort((a, b) => a.names.length - b.names.length);
  return {
    match(method, path) {
      for (const route of routes) {
        if (route.method !== method) continue;
        const found = route.regex.exec(path);
        if (!found) continue;
        const params: Record<string, string> = {};
        for (let i = 0; i < route.names.length; i += 1) {
          const name = route.names[i]!;
          try {
            params[name] = decodeURIComponent(found[i + 1]!);
          } catch {
            throw errors.invalidParameter(name, `${name} is not correctly percent-encoded.`);
          }
        }
        return { operation: route.operation, plan: route.plan, params };
      }
      return undefined;
    },
    methodsOf(path) {
      return [...new Set(routes.filter((r) => r.regex.test(path)).map((r) => r.method))];
    },
  };
}

/**
 * Compiles every operation's request validators in the background, one operation per turn of the event loop, so
 * requests are served meanwhile and no first request of an operation pays for its compilation (~25 ms each).
 */
export function warmRequestValidators(api: OpenAPIBackend): void {
  const ids = api.getOperations().map((operation) => operation.operationId!);
  const next = () => {
    const id = ids.shift();
    if (!id) return;
    api.validator.getRequestValidatorsForOperation(id);
    setImmediate(next);
  };
  setImmediate(next);
}
