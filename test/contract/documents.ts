// Loads the bundled contract documents from generated/ (what clients, docs, the server and the suite all read) and
// compiles JSON Schema validators for any location inside them.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsPlugin from 'ajv-formats';

// ajv-formats is CommonJS: under NodeNext its default import is the module object.
const addFormats = addFormatsPlugin as unknown as typeof addFormatsPlugin.default;

type Json = Record<string, unknown>;

const read = (name: string): Json =>
  JSON.parse(readFileSync(fileURLToPath(new URL(`../../generated/${name}`, import.meta.url)), 'utf8')) as Json;

export const openapi = read('openapi.json') as Json & {
  paths: Record<string, Record<string, Json>>;
  components: Json & { schemas: Record<string, Json>; securitySchemes: Record<string, Json> };
  webhooks: Record<string, Record<string, Json>>;
};
export const asyncapi = read('asyncapi.json') as Json & {
  channels: Record<string, Json>;
  operations: Record<string, Json>;
  components: Json & { schemas: Record<string, Json>; messages: Record<string, Json> };
};

export const httpMethods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

export interface Operation extends Json {
  operationId: string;
  method: string;
  path: string;
  responses: Record<string, Json>;
  security?: Record<string, string[]>[];
  requestBody?: Json;
  parameters?: Json[];
  tags?: string[];
}

/** Every operation of the HTTP document with its method and path, $refs already bundled. */
export const operations: Operation[] = Object.entries(openapi.paths).flatMap(([path, item]) =>
  httpMethods.filter((m) => m in item).map((method) => ({ ...(item[method] as Json), method, path }) as Operation),
);

export function operation(method: string, path: string): Operation {
  const found = operations.find((o) => o.method === method.toLowerCase() && o.path === path);
  if (!found) throw new Error(`${method} ${path} is not in the contract`);
  return found;
}

/**
 * Follows a local `#/...` reference inside a document. Keywords written next to a `$ref` (OpenAPI 3.1 allows
 * `default` or `description` there) win over the referenced schema's, as they do for a validator.
 */
export function resolve<T = Json>(document: Json, node: unknown): T {
  let current = node as Json;
  let siblings: Json = {};
  const seen = new Set<string>();
  while (current && typeof current === 'object' && typeof current.$ref === 'string') {
    const { $ref: ref, ...rest } = current;
    if (!ref.startsWith('#/') || seen.has(ref)) throw new Error(`cannot resolve ${ref}`);
    seen.add(ref);
    siblings = { ...rest, ...siblings };
    current = pointer(document, ref.slice(1)) as Json;
  }
  return (Object.keys(siblings).length > 0 ? { ...current, ...siblings } : current) as T;
}

export function pointer(document: unknown, path: string): unknown {
  return path
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce<unknown>((node, key) => (node as Json | undefined)?.[key], document);
}

export const escapePointer = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');

export function schema(name: string): Json {
  const found = openapi.components.schemas[name];
  if (!found) throw new Error(`schema ${name} is not in the contract`);
  return found;
}

/** An Ajv 2020 instance that knows both documents, so any JSON pointer inside them can be compiled. */
export function createAjv() {
  const ajv = new Ajv2020({ strict: false, allErrors: true, discriminator: true, validateSchema: false });
  addFormats(ajv);
  ajv.addFormat('binary', true);
  ajv.addKeyword('example');
  ajv.addSchema({ ...openapi, $id: 'openapi.json' });
  // AsyncAPI's top-level `id` is the application's URN, not a schema id: leave it out of what Ajv sees.
  const asyncapiSchemas: Json = { ...asyncapi, $id: 'asyncapi.json' };
  delete asyncapiSchemas.id;
  ajv.addSchema(asyncapiSchemas);
  return ajv;
}

/** Validates `value` against the schema at `location` (`openapi.json#/components/schemas/X`); returns error text. */
export function validatorAt(ajv: ReturnType<typeof createAjv>, location: string) {
  const validate = ajv.getSchema(location) ?? ajv.compile({ $ref: location });
  return (value: unknown): string | null =>
    validate(value) ? null : ajv.errorsText(validate.errors, { separator: '; ', dataVar: 'value' });
}
