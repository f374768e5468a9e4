// Phase "coverage": the boundaries of every constraint of every top-level body field and query parameter —
// min/max length and value and each ±1, every enum value, true/false, null — each variant classified by Ajv
// against the whole schema: a valid one must be accepted (positive_data_acceptance), an invalid one refused
// (negative_data_rejection, with `param` naming the field). Valid variants are capped at --max-examples per
// operation (they may create tasks); invalid ones are all sent.
import type { RunContext } from '../core/run-context.ts';
import type { Operation, Schema } from '../core/spec.ts';
import { buildRequest, bodyMediaTypes, bodySchema, fileFields, parametersIn } from './build.ts';
import {
  baseBody,
  bodyIsValid,
  effectiveSchema,
  nonNull,
  requiredQuery,
  seededRandom,
  shuffled,
  typeOf,
  valueIsValid,
} from './values.ts';

const MAX_STRING = 100_000;
const MAX_VALID_ITEMS = 64;

function padTo(base: unknown, length: number): string {
  const start = typeof base === 'string' ? base : '';
  if (start.length >= length) return start.slice(0, length);
  return start + 'a'.repeat(length - start.length);
}

/** Boundary values of one schema (the caller classifies each). */
export function boundaryValues(schema: Schema, base: unknown): unknown[] {
  const s = nonNull(schema);
  const values: unknown[] = [null];
  if (Array.isArray(s.enum)) values.push(...(s.enum as unknown[]));
  if (s.const !== undefined) values.push(s.const);
  const type = typeOf(s);
  if (type === 'integer' || type === 'number') {
    for (const key of ['minimum', 'exclusiveMinimum'] as const)
      if (typeof s[key] === 'number') values.push(s[key], (s[key] as number) - 1, (s[key] as number) + 1);
    for (const key of ['maximum', 'exclusiveMaximum'] as const)
      if (typeof s[key] === 'number') values.push(s[key], (s[key] as number) + 1, (s[key] as number) - 1);
  }
  if (type === 'string') {
    const min = typeof s.minLength === 'number' ? s.minLength : undefined;
    const max = typeof s.maxLength === 'number' ? s.maxLength : undefined;
    if (min !== undefined) values.push(padTo(base, min), ...(min > 0 ? [padTo(base, min - 1)] : []));
    if (max !== undefined && max < MAX_STRING) values.push(padTo(base, max), padTo(base, max + 1));
  }
  if (type === 'boolean') values.push(true, false);
  if (type === 'array' && Array.isArray(base) && base.length > 0) {
    if (typeof s.minItems === 'number' && s.minItems > 0) values.push(base.slice(0, s.minItems - 1));
    if (typeof s.maxItems === 'number' && s.maxItems < 5000) {
      const items = (length: number) => Array.from({ length }, (_, i) => base[i % base.length]);
      // a long valid array can cost the server real work (2048 texts to embed): only short ones are sent valid
      if (s.maxItems <= MAX_VALID_ITEMS) values.push(items(s.maxItems));
      values.push(items(s.maxItems + 1));
    }
  }
  return values;
}

interface Variant {
  label: string;
  field: string;
  location: 'body' | 'query';
  valid: boolean;
  body?: unknown;
  query?: Record<string, unknown>;
}

function bodyVariants(run: RunContext, operation: Operation, mediaType: string, base: unknown): Variant[] {
  const whole = bodySchema(operation, mediaType);
  if (!whole || !base || typeof base !== 'object' || Array.isArray(base)) return [];
  const schema = effectiveSchema(run, `${operation.id}:${mediaType}`, whole, base);
  const files = new Set(fileFields(schema));
  const variants: Variant[] = [];
  const seen = new Set<string>();
  for (const [field, fieldSchema] of Object.entries((schema.properties ?? {}) as Record<string, Schema>)) {
    if (files.has(field)) continue;
    for (const value of boundaryValues(fieldSchema, (base as Record<string, unknown>)[field])) {
      const body = { ...(base as Record<string, unknown>), [field]: value };
      // multipart fields are text on the wire: a null cannot be sent there
      if (mediaType === 'multipart/form-data' && value === null) continue;
      const key = JSON.stringify(body);
      if (seen.has(key)) continue;
      seen.add(key);
      const shown = JSON.stringify(value);
      variants.push({
        label: `${field} = ${shown.length > 40 ? `${shown.slice(0, 40)}… (${shown.length} chars)` : shown}`,
        field,
        location: 'body',
        valid: bodyIsValid(run, operation, mediaType, body),
        body,
      });
    }
  }
  return variants;
}

function queryVariants(run: RunContext, operation: Operation): Variant[] {
  const variants: Variant[] = [];
  for (const parameter of parametersIn(operation, 'query')) {
    if (!parameter.schema) continue;
    for (const value of boundaryValues(parameter.schema, undefined)) {
      if (value === null) continue; // a query string has no null
      variants.push({
        label: `?${parameter.name}=${String(value)}`,
        field: parameter.name,
        location: 'query',
        valid: valueIsValid(run, `${operation.id}:query:${parameter.name}`, parameter.schema, value),
        query: { [parameter.name]: value },
      });
    }
  }
  return variants;
}

export async function runCoverage(run: RunContext): Promise<void> {
  const random = seededRandom(run.options.seed);
  for (const operation of run.operations()) {
    if (run.skipUnimplemented(operation, 'coverage')) continue;
    // every request media type has its own boundaries (a multipart field is text, a JSON one is typed)
    const mediaTypes = bodyMediaTypes(operation);
    const bases = new Map(mediaTypes.map((mediaType) => [mediaType, baseBody(run, operation, mediaType)]));
    const usable = mediaTypes.filter((mediaType) => bases.get(mediaType) !== undefined);
    for (const mediaType of mediaTypes.filter((m) => !usable.includes(m)))
      if (operation.requestBody?.required)
        run.recorder.skipped({
          what: `${operation.id} (${mediaType})`,
          phase: 'coverage',
          reason: 'no valid body to start from',
        });
    if (mediaTypes.length > 0 && usable.length === 0 && operation.requestBody?.required) continue;
    // query parameters do not depend on the body: once, with the first usable media type's body
    const first = usable[0];
    const variants = [
      ...usable.flatMap((mediaType) =>
        bodyVariants(run, operation, mediaType, bases.get(mediaType)).map((variant) => ({ ...variant, mediaType })),
      ),
      ...queryVariants(run, operation).map((variant) => ({ ...variant, mediaType: first })),
    ];
    const valid = shuffled(
      variants.filter((v) => v.valid),
      random,
    ).slice(0, run.options.maxExamples);
    const invalid = variants.filter((v) => !v.valid);
    for (const variant of [...valid, ...invalid]) {
      const query = { ...requiredQuery(run, operation), ...variant.query };
      const { mediaType } = variant;
      const body = variant.body ?? (mediaType ? bases.get(mediaType) : undefined);
      const request = buildRequest(operation, { body, query, mediaType }, run.audio);
      const shown = mediaTypes.length > 1 && mediaType ? ` (${mediaType})` : '';
      await run.exchange(request, {
        phase: 'coverage',
        label: `${variant.valid ? 'valid' : 'invalid'} boundary ${variant.label}${shown}`,
        operation,
        expectation: variant.valid
          ? // a query parameter on its own may break a rule stated in prose: no claim for valid query values
            variant.location === 'query'
            ? { kind: 'any' }
            : { kind: 'positive' }
          : { kind: 'negative', reason: `boundary ${variant.label}`, field: variant.field, location: variant.location },
      });
    }
    await run.activeChecks(operation, 'coverage');
  }
}
