// Shared by the generating phases: a valid base body for an operation (its first named example, else generated),
// the Ajv verdict of a candidate body, the seeded random source, and the value shapes a schema allows.
import { generateSync } from 'json-schema-faker';
import type { RunContext } from '../core/run-context.ts';
import type { Operation, Schema } from '../core/spec.ts';
import { bodySchema, fileFields, parameterExample, parametersIn } from './build.ts';

/** The placeholder a binary field holds in a candidate body (the request builder puts the audio there). */
export const FILE_PLACEHOLDER = '<binary audio>';

export function bodyIsValid(run: RunContext, operation: Operation, mediaType: string, body: unknown): boolean {
  const schema = bodySchema(operation, mediaType);
  if (!schema) return true;
  return (
    run.spec.validator(`request:${operation.id}:${mediaType}`, schema)(body) &&
    contentIsValid(schema, body) &&
    toolReferencesHold(body)
  );
}

/**
 * A generated chat body made to keep its tool references (toolReferencesHold): a named `tool_choice` names the first
 * tool (none: the choice is dropped), `required` without tools is dropped, a tool repeating a name is dropped. Random
 * names never meet by chance, so without this no generated body that names a tool would be valid.
 */
export function withToolReferences(body: unknown): unknown {
  if (!body || typeof body !== 'object' || !('tool_choice' in body || 'tools' in body)) return body;
  const copy = { ...(body as Record<string, unknown>) };
  if (Array.isArray(copy.tools)) {
    const seen = new Set<unknown>();
    copy.tools = copy.tools.filter((tool) => {
      const name = (tool as { function?: { name?: unknown } }).function?.name;
      if (seen.has(name)) return false;
      seen.add(name);
      return true;
    });
  }
  const names = [...((copy.tools as { function?: { name?: unknown } }[] | undefined) ?? [])].map(
    (tool) => tool.function?.name,
  );
  const choice = copy.tool_choice;
  if (choice === 'required' && names.length === 0) delete copy.tool_choice;
  if (choice && typeof choice === 'object') {
    if (names.length === 0) delete copy.tool_choice;
    else copy.tool_choice = { ...choice, function: { ...(choice as { function?: object }).function, name: names[0] } };
  }
  return copy;
}

/**
 * What the chat request's tools must satisfy across fields, which the document states in words (a JSON Schema cannot
 * relate one field to another): a named `tool_choice` names one of `tools`, `required` needs tools, and the tools'
 * names are unique. A body that breaks it is invalid data, refused 400 by design.
 */
function toolReferencesHold(body: unknown): boolean {
  if (!body || typeof body !== 'object' || !('tool_choice' in body || 'tools' in body)) return true;
  const { tools, tool_choice: choice } = body as { tools?: unknown; tool_choice?: unknown };
  const names = Array.isArray(tools)
    ? tools.map((tool) => (tool as { function?: { name?: unknown } }).function?.name)
    : [];
  if (new Set(names).size !== names.length) return false;
  if (choice === 'required') return names.length > 0;
  if (choice && typeof choice === 'object') {
    return names.includes((choice as { function?: { name?: unknown } }).function?.name);
  }
  return true;
}

/**
 * `contentMediaType: application/json` on a string field (the multipart `output`) is only an annotation for Ajv;
 * the document means the text is JSON, so a string that does not parse is invalid data.
 */
function contentIsValid(schema: Schema, body: unknown): boolean {
  if (!body || typeof body !== 'object') return true;
  for (const [field, fieldSchema] of Object.entries((schema.properties ?? {}) as Record<string, Schema>)) {
    const value = (body as Record<string, unknown>)[field];
    if (fieldSchema.contentMediaType !== 'application/json' || typeof value !== 'string') continue;
    try {
      JSON.parse(value);
    } catch {
      return false;
    }
  }
  return true;
}

export function valueIsValid(run: RunContext, key: string, schema: Schema, value: unknown): boolean {
  return run.spec.validator(`value:${key}`, schema)(value);
}

/** Generated data for `schema` (json-schema-faker with a seed), or undefined when it cannot generate. */
export function generate(schema: Schema, seed: number): unknown {
  try {
    // arrays of at most 5 items and strings of at most 64 characters: a fuzzed case should cost the server little
    // (2048 texts to embed would not), and a string as long as its schema allows (a chat message may have 524,288
    // characters) in every field could make a body over the server's body limit, which is refused whatever it says
    return generateSync(schema as never, {
      seed,
      maxDepth: 4,
      maxItems: 5,
      maxLength: 64,
      useExamplesValue: false,
      alwaysFakeOptionals: false,
    });
  } catch {
    return undefined;
  }
}

/** A body the schema accepts: the first named example, else a generated one that validates. */
export function baseBody(run: RunContext, operation: Operation, mediaType: string): unknown {
  const media = operation.requestBody?.content[mediaType];
  const candidates: unknown[] = Object.values(media?.examples ?? {}).map((e) => e.value);
  if (media?.example !== undefined) candidates.push(media.example);
  for (const candidate of candidates) if (bodyIsValid(run, operation, mediaType, candidate)) return candidate;
  const schema = media?.schema;
  if (!schema) return undefined;
  for (let seed = run.options.seed; seed < run.options.seed + 20; seed++) {
    const body = withFiles(generate(schema, seed), schema);
    if (bodyIsValid(run, operation, mediaType, body)) return body;
  }
  return undefined;
}

/** The body with its binary fields set to the placeholder (so Ajv sees a string and the builder sends audio). */
export function withFiles(body: unknown, schema: Schema | undefined): unknown {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return body;
  const copy = { ...(body as Record<string, unknown>) };
  for (const name of fileFields(schema)) if (name in copy) copy[name] = FILE_PLACEHOLDER;
  return copy;
}

/** The schema without its null branch (`type: [string, null]`, `oneOf: [{…}, {type: null}]`). */
export function nonNull(schema: Schema): Schema {
  if (Array.isArray(schema.type)) {
    const types = (schema.type as string[]).filter((t) => t !== 'null');
    return { ...schema, type: types.length === 1 ? types[0] : types };
  }
  for (const key of ['oneOf', 'anyOf'] as const) {
    const variants = schema[key] as Schema[] | undefined;
    if (!variants) continue;
    const rest = variants.filter((v) => v.type !== 'null');
    if (rest.length === 1) return { ...schema, ...rest[0], [key]: undefined };
  }
  return schema;
}

export const typeOf = (schema: Schema): string | undefined => {
  const type = nonNull(schema).type;
  return typeof type === 'string' ? type : undefined;
};

/** A deterministic pseudo-random source (mulberry32) for picks the seed must fix. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function shuffled<T>(items: T[], random: () => number): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy;
}

/** Values for the operation's required query parameters (documented example, else generated), so a case that
 * varies one parameter is not refused for another one missing. */
export function requiredQuery(run: RunContext, operation: Operation): Record<string, unknown> {
  const query: Record<string, unknown> = {};
  for (const parameter of parametersIn(operation, 'query')) {
    if (!parameter.required) continue;
    const value =
      parameterExample(parameter) ?? (parameter.schema ? generate(parameter.schema, run.options.seed) : undefined);
    if (value !== undefined) query[parameter.name] = value;
  }
  return query;
}

/**
 * The object schema whose fields a body uses: the schema itself, or the `oneOf`/`anyOf` branch the base body
 * matches (PriceCalculationRequest is one branch per `type`). Validity is still judged against the whole schema.
 */
export function effectiveSchema(run: RunContext, key: string, schema: Schema, base: unknown): Schema {
  for (const keyword of ['oneOf', 'anyOf'] as const) {
    const branches = schema[keyword] as Schema[] | undefined;
    if (!branches) continue;
    const index = branches.findIndex((branch, i) => run.spec.validator(`${key}:${keyword}:${i}`, branch)(base));
    if (index >= 0 && branches[index]!.properties) return branches[index]!;
  }
  return schema;
}
