// Reading the contract's schemas, shared by the suite and the reference server: one Ajv 2020 set up for the documents'
// formats and keywords, and `$ref` inlining. It lives with the suite because the suite is published on its own and
// must not depend on server code; the server imports it from here.
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsPlugin from 'ajv-formats';
import { cacheCompiledValidators, validatorCacheDir } from './compiled-validator-cache.ts';

const addFormats = addFormatsPlugin as unknown as typeof addFormatsPlugin.default;

/**
 * Ajv for the contract's schemas (JSON Schema 2020-12 with the formats and keywords the documents use). The server
 * coerces path, query and header parameters, which arrive as strings; bodies and responses never are. With
 * SCRIBE_VALIDATOR_CACHE_DIR set, compiled validators are shared between processes (compiled-validator-cache.ts).
 */
export function createContractAjv(options: { coerceTypes?: boolean; allErrors?: boolean } = {}): Ajv2020 {
  const cacheDir = validatorCacheDir();
  const settings = {
    strict: false,
    discriminator: true,
    allErrors: options.allErrors ?? false,
    coerceTypes: options.coerceTypes ?? false,
  };
  const ajv = new Ajv2020({ ...settings, ...(cacheDir ? { code: { source: true } } : {}) });
  addFormats(ajv);
  ajv.addFormat('binary', true);
  ajv.addKeyword('example');
  if (cacheDir) cacheCompiledValidators(ajv, cacheDir, JSON.stringify(settings));
  return ajv;
}

/**
 * Inlines every local `$ref` as a fresh copy (siblings such as `default` or `description` win). openapi-backend's
 * own dereferencing shares one object between all uses of a component and then fails on documents like ours.
 */
export function inlineReferences<T>(document: T): T {
  const resolve = (ref: string): unknown =>
    ref
      .slice(2)
      .split('/')
      .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], document);
  const visit = (node: unknown, seen: string[]): unknown => {
    if (Array.isArray(node)) return node.map((item) => visit(item, seen));
    if (!node || typeof node !== 'object') return node;
    const { $ref, ...rest } = node as Record<string, unknown>;
    const copy: Record<string, unknown> = {};
    if (typeof $ref === 'string' && $ref.startsWith('#/')) {
      if (seen.includes($ref)) throw new Error(`circular reference ${$ref}`);
      Object.assign(copy, visit(resolve($ref), [...seen, $ref]));
    }
    for (const [key, value] of Object.entries(rest)) copy[key] = visit(value, seen);
    return copy;
  };
  return visit(document, []) as T;
}
