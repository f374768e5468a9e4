// Every number a client may send is bounded by the contract, and the server holds to it: walked from the generated
// contract, each numeric field of a request body (JSON and multipart) and each numeric query parameter has a finite
// minimum and maximum; then each field of a JSON body and each numeric query parameter is sent with values beyond
// its bounds (fast-check picks them, plus `1e309`, which JSON.parse reads as Infinity, and `1e308`) inside an
// otherwise valid request built from the contract's own examples, and must be a 400 naming it, never a 200 or a 500.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { databaseKinds, useHarness, type Harness, type Provisioned, type Reply } from '../test-support/harness.ts';

type Schema = {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, Schema>;
  items?: Schema;
  oneOf?: Schema[];
  anyOf?: Schema[];
  allOf?: Schema[];
  examples?: unknown[];
  enum?: unknown[];
  const?: unknown;
  format?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
};
type Parameter = { $ref?: string; name: string; in: string; required?: boolean; schema: Schema };
type Operation = {
  operationId: string;
  security?: Record<string, unknown>[];
  parameters?: Parameter[];
  requestBody?: { $ref?: string; content?: Record<string, { schema: Schema }> };
};

const spec = JSON.parse(readFileSync(new URL('../../../generated/openapi.json', import.meta.url), 'utf8')) as {
  paths: Record<string, Record<string, Operation>>;
};

function deref<T extends { $ref?: string }>(node: T): T {
  let current: T = node;
  while (current?.$ref) {
    current = current.$ref
      .slice(2)
      .split('/')
      .reduce<unknown>((n, key) => (n as Record<string, unknown>)[key], spec) as T;
  }
  return current;
}

const isNumeric = (schema: Schema) =>
  [schema.type].flat().some((type) => type === 'number' || type === 'integer') &&
  schema.const === undefined &&
  schema.enum === undefined;

/** Numeric fields under `schema`, as property paths; `oneOf`/`anyOf`/`allOf` variants are walked too. */
function numericFields(schema: Schema, path: string[] = [], seen = new Set<Schema>()): [string[], Schema][] {
  const node = deref(schema);
  if (!node || typeof node !== 'object' || seen.has(node)) return [];
  const inner = new Set(seen).add(node);
  const found: [string[], Schema][] = isNumeric(node) ? [[path, node]] : [];
  for (const [name, child] of Object.entries(node.properties ?? {}))
    found.push(...numericFields(child, [...path, name], inner));
  if (node.items) found.push(...numericFields(node.items, [...path, '0'], inner));
  for (const variant of [...(node.oneOf ?? []), ...(node.anyOf ?? []), ...(node.allOf ?? [])])
    found.push(...numericFields(variant, path, inner));
  return found;
}

interface Operated {
  method: string;
  path: string;
  operation: Operation;
}

const operations: Operated[] = Object.entries(spec.paths).flatMap(([path, item]) =>
  Object.entries(item)
    .filter(([, operation]) => typeof operation === 'object' && operation.operationId)
    .map(([method, operation]) => ({ method: method.toUpperCase(), path, operation })),
);
const parametersOf = (operation: Operation) => (operation.parameters ?? []).map((p) => deref(p));
const where = ({ method, path }: Operated, field: string) => `${method} ${path} ${field}`;

const unit = suite('numeric bounds in the contract');

unit('every numeric request field and query parameter has a finite minimum and maximum', () => {
  const unbounded: string[] = [];
  let checked = 0;
  for (const op of operations) {
    const body = deref(op.operation.requestBody ?? {}) as Operation['requestBody'];
    const fields = Object.values(body?.content ?? {}).flatMap((media) => numericFields(media.schema));
    for (const parameter of parametersOf(op.operation)) {
      if (isNumeric(deref(parameter.schema))) fields.push([[parameter.name], deref(parameter.schema)]);
    }
    for (const [path, schema] of fields) {
      checked += 1;
      const low = schema.minimum ?? schema.exclusiveMinimum;
      const high = schema.maximum ?? schema.exclusiveMaximum;
      if (!Number.isFinite(low) || !Number.isFinite(high)) unbounded.push(where(op, path.join('.')));
    }
  }
  assert.ok(checked > 20, `only ${checked} numeric fields found: the walk is broken`);
  assert.equal(unbounded, [], `numbers without a finite minimum and maximum:\n${unbounded.join('\n')}`);
});

unit.run();

/** A JSON number literal beyond the field's bounds: Infinity as `1e309` (JSON.stringify would write `null`). */
const literal = (value: number) => (value === Infinity ? '1e309' : value === -Infinity ? '-1e309' : String(value));

function beyondBounds(schema: Schema): fc.Arbitrary<string> {
  const high = (schema.maximum ?? schema.exclusiveMaximum)!;
  const low = (schema.minimum ?? schema.exclusiveMinimum)!;
  // Strictly outside: -0 is not below a minimum of 0 (String(-0) is "0").
  const above = (v: number) => (schema.maximum !== undefined ? v > high : v >= high);
  const below = (v: number) => (schema.minimum !== undefined ? v < low : v <= low);
  const huge = fc.constantFrom('1e309', '1e308', '-1e309', '9007199254740993');
  // A field without bounds (the first test names it) gets the huge literals only.
  if (!Number.isFinite(high) || !Number.isFinite(low)) return huge;
  return fc.oneof(
    huge,
    fc.double({ min: high, noNaN: true }).filter(above).map(literal),
    fc.double({ max: low, noNaN: true }).filter(below).map(literal),
  );
}

/** The contract's example of a JSON body, per `type` variant for a `oneOf` body. */
function exampleBodies(schema: Schema): [Schema, Record<string, unknown>][] {
  const node = deref(schema);
  if (node.oneOf && !node.examples) return node.oneOf.flatMap((variant) => exampleBodies(variant));
  return node.examples?.[0] ? [[node, node.examples[0] as Record<string, unknown>]] : [];
}

const PLACEHOLDER = '"__beyond_bounds__"';

/** `body` with the field at `path` set to a placeholder, as JSON text. */
function withPlaceholder(body: Record<string, unknown>, path: string[]): string {
  const copy = structuredClone(body);
  let node: Record<string, unknown> = copy;
  for (const key of path.slice(0, -1)) node = (node[key] ??= {}) as Record<string, unknown>;
  node[path.at(-1)!] = JSON.parse(PLACEHOLDER);
  return JSON.stringify(copy);
}

/** A concrete path: uuid path parameters get a fresh UUID (validation answers before any lookup), enums their first. */
function concretePath(op: Operated): string {
  return op.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const schema = deref(parametersOf(op.operation).find((p) => p.in === 'path' && p.name === name)!.schema);
    return String(schema.enum?.[0] ?? (schema.format === 'uuid' ? randomUUID() : schema.examples?.[0]));
  });
}

for (const kind of databaseKinds) {
  const test = suite(`numbers beyond their bounds through the API (${kind})`);
  const harness = useHarness(test, kind, { env: { SCRIBE_RATE_LIMIT_RPS: '100000' } });
  let account: Provisioned;

  const send = (h: Harness, op: Operated, path: string, body?: string): Promise<Reply> => {
    const options = body === undefined ? {} : { body, headers: { 'Content-Type': 'application/json' } };
    const scheme = Object.keys(op.operation.security?.[0] ?? {})[0];
    if (scheme === 'BearerAuth') return h.v3(account.apiKey, op.method, path, options);
    if (scheme === 'PublicKey') return h.signed(account.signer, op.method, path, options);
    if (scheme === 'AdminToken') return h.admin(op.method, path, options);
    return h.request(op.method, path, options);
  };

  const expectRefused = (reply: Reply, op: Operated, field: string, sent: string) => {
    const context = `${where(op, field)} = ${sent}: ${reply.status} ${reply.text}`;
    assert.is(reply.status, 400, context);
    if (op.path.startsWith('/v2/') || op.path.startsWith('/v1/')) {
      assert.equal([reply.body.error, Object.keys(reply.body.errors)], ['VALIDATION_ERROR', [field]], context);
    } else {
      assert.equal([reply.body.error.code, reply.body.error.param], ['invalid_parameter', field], context);
    }
  };

  test.before(async () => {
    account = await harness().provision({ balance: 100 });
  });

  test('every numeric field of a JSON body, sent beyond its bounds, is 400 naming the field', async () => {
    const h = harness();
    let fields = 0;
    for (const op of operations) {
      const media = deref(op.operation.requestBody ?? {}).content?.['application/json'];
      if (!media) continue;
      for (const [variant, example] of exampleBodies(media.schema)) {
        for (const [path, schema] of numericFields(variant)) {
          if (path.includes('0')) continue; // numbers inside arrays: none in today's request bodies
          fields += 1;
          const field = path.join('.');
          const json = withPlaceholder(example, path);
          await fc.assert(
            fc.asyncProperty(beyondBounds(schema), async (value) => {
              const reply = await send(h, op, concretePath(op), json.replace(PLACEHOLDER, value));
              expectRefused(reply, op, field, value);
            }),
            { numRuns: 6 },
          );
        }
      }
    }
    assert.ok(fields >= 15, `only ${fields} JSON numeric fields were sent`);
  });

  test('every numeric query parameter, sent beyond its bounds, is 400 naming it', async () => {
    const h = harness();
    let sent = 0;
    for (const op of operations) {
      const parameters = parametersOf(op.operation).filter((p) => p.in === 'query');
      for (const parameter of parameters.filter((p) => isNumeric(deref(p.schema)))) {
        sent += 1;
        const others = parameters
          .filter((p) => p.required && p !== parameter)
          .map((p) => `${p.name}=${encodeURIComponent(String(deref(p.schema).examples?.[0] ?? 'x'))}`);
        await fc.assert(
          fc.asyncProperty(beyondBounds(deref(parameter.schema)), async (value) => {
            const query = [...others, `${parameter.name}=${encodeURIComponent(value)}`].join('&');
            const reply = await send(h, op, `${concretePath(op)}?${query}`);
            expectRefused(reply, op, parameter.name, value);
          }),
          { numRuns: 4 },
        );
      }
    }
    assert.ok(sent >= 5, `only ${sent} numeric query parameters were sent`);
  });

  test.run();
}
