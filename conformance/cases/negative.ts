// Phase "negative": schema-aware mutations of a valid request — drop a required field, a wrong type, a value
// outside the enum or range (a list item's field too: a chat message's role), an extra property where the schema
// forbids one, broken JSON, a wrong Content-Type, both `url` and `file`, bad query and header values and a
// malformed path id. Every body mutation is checked with Ajv first and sent only when the schema really rejects it;
// the server must refuse it (negative_data_rejection) and, on a 400, name the field (error_body_conformance).
import type { RunContext } from '../core/run-context.ts';
import type { Operation, Schema } from '../core/spec.ts';
import type { Expectation, HttpRequest } from '../core/types.ts';
import { buildRequest, bodyMediaTypes, bodySchema, fileFields, parametersIn, queryString } from './build.ts';
import { baseBody, bodyIsValid, effectiveSchema, nonNull, requiredQuery, typeOf, valueIsValid } from './values.ts';

interface Mutation {
  label: string;
  request: HttpRequest;
  expectation: Expectation;
}

function wrongTypeValue(schema: Schema, multipart: boolean): unknown {
  const type = typeOf(schema);
  if (type === 'string') return multipart ? undefined : 12345;
  if (type === 'integer' || type === 'number' || type === 'boolean') return 'not-a-value';
  if (type === 'object' || type === 'array') return multipart ? 'not-json' : 'not-an-object';
  return undefined;
}

function bodyMutations(run: RunContext, operation: Operation, mediaType: string, base: Record<string, unknown>) {
  const schema = effectiveSchema(run, `${operation.id}:${mediaType}`, bodySchema(operation, mediaType)!, base);
  const multipart = mediaType === 'multipart/form-data';
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const files = new Set(fileFields(schema));
  const candidates: Array<{ label: string; field: string; body: Record<string, unknown> }> = [];
  for (const field of (schema.required as string[] | undefined) ?? []) {
    const body = { ...base };
    delete body[field];
    candidates.push({ label: `without required ${field}`, field, body });
  }
  for (const [field, fieldSchema] of Object.entries(properties)) {
    if (files.has(field)) continue;
    const wrong = wrongTypeValue(fieldSchema, multipart);
    if (wrong !== undefined)
      candidates.push({ label: `${field} of the wrong type`, field, body: { ...base, [field]: wrong } });
    const s = nonNull(fieldSchema);
    if (Array.isArray(s.enum))
      candidates.push({
        label: `${field} outside the enum`,
        field,
        body: { ...base, [field]: 'not-a-documented-value' },
      });
    if (typeof s.maximum === 'number')
      candidates.push({ label: `${field} above maximum`, field, body: { ...base, [field]: s.maximum + 1 } });
    if (typeof s.minimum === 'number')
      candidates.push({ label: `${field} below minimum`, field, body: { ...base, [field]: s.minimum - 1 } });
  }
  if (schema.additionalProperties === false)
    candidates.push({
      label: 'an undocumented property',
      field: 'unexpected_field',
      body: { ...base, unexpected_field: 'x' },
    });
  // "both url and file": a link next to an upload (the forms that take a file)
  if (multipart && files.size > 0 && !('url' in base))
    candidates.push({
      label: 'both url and file',
      field: 'url',
      body: { ...base, url: 'https://media.example.com/a.mp3' },
    });
  // one level down: a value outside the enum of a field of a list's first item (a chat message's `role`)
  for (const [field, fieldSchema] of Object.entries(properties)) {
    const list = base[field];
    const items = nonNull(fieldSchema).items as Schema | undefined;
    if (!items || !Array.isArray(list) || typeof list[0] !== 'object' || list[0] === null) continue;
    for (const [name, itemSchema] of Object.entries((nonNull(items).properties ?? {}) as Record<string, Schema>))
      if (Array.isArray(nonNull(itemSchema).enum))
        candidates.push({
          label: `${field}[0].${name} outside the enum`,
          field,
          body: { ...base, [field]: [{ ...list[0], [name]: 'not-a-documented-value' }, ...list.slice(1)] },
        });
  }
  const mutations: Mutation[] = [];
  for (const candidate of candidates) {
    if (bodyIsValid(run, operation, mediaType, candidate.body)) continue; // the schema allows it: not negative
    mutations.push({
      label: candidate.label,
      request: buildRequest(
        operation,
        { body: candidate.body, mediaType, query: requiredQuery(run, operation) },
        run.audio,
      ),
      expectation: { kind: 'negative', reason: candidate.label, field: candidate.field, location: 'body' },
    });
  }
  if (!multipart) {
    const path = buildRequest(operation, {}, run.audio).path;
    mutations.push({
      label: 'broken JSON',
      request: {
        method: operation.method,
        path,
        headers: {},
        body: { kind: 'raw', text: '{"broken": ', contentType: 'application/json' },
      },
      expectation: { kind: 'negative', reason: 'broken JSON' },
    });
    mutations.push({
      label: 'wrong Content-Type',
      request: {
        method: operation.method,
        path,
        headers: {},
        body: { kind: 'raw', text: JSON.stringify(base), contentType: 'text/plain' },
      },
      expectation: { kind: 'negative', reason: 'wrong Content-Type' },
    });
  }
  return mutations;
}

/** Invalid values a header can carry (an empty one may not be sent at all, so none shorter than one character). */
function headerValues(schema: Schema): Array<[string, string]> {
  const s = nonNull(schema);
  const values: Array<[string, string]> = [];
  if (typeof s.maxLength === 'number') values.push(['longer than its maximum', 'k'.repeat(s.maxLength + 1)]);
  if (typeof s.minLength === 'number' && s.minLength > 1) values.push(['shorter than its minimum', 'k']);
  if (typeof s.pattern === 'string') values.push(['outside its pattern', 'not allowed here']);
  if (Array.isArray(s.enum)) values.push(['outside the enum', 'not-a-documented-value']);
  return values;
}

function parameterMutations(
  run: RunContext,
  operation: Operation,
  base: unknown,
  mediaType: string | undefined,
): Mutation[] {
  const mutations: Mutation[] = [];
  const required = requiredQuery(run, operation);
  for (const parameter of parametersIn(operation, 'query')) {
    if (!parameter.schema) continue;
    const s = nonNull(parameter.schema);
    const values: Array<[string, unknown]> = [];
    const type = typeOf(s);
    if (type === 'integer' || type === 'number' || type === 'boolean')
      values.push(['of the wrong type', 'not-a-value']);
    if (Array.isArray(s.enum)) values.push(['outside the enum', 'not-a-documented-value']);
    if (typeof s.maximum === 'number') values.push(['above maximum', s.maximum + 1]);
    if (typeof s.minimum === 'number') values.push(['below minimum', s.minimum - 1]);
    if (s.format === 'date' || s.format === 'date-time') values.push(['not a date', 'not-a-date']);
    for (const [what, value] of values) {
      if (valueIsValid(run, `${operation.id}:query:${parameter.name}`, parameter.schema, value)) continue;
      const request = buildRequest(operation, { body: base, mediaType }, run.audio);
      request.path = request.path.split('?')[0] + queryString({ ...required, [parameter.name]: value });
      mutations.push({
        label: `?${parameter.name} ${what}`,
        request,
        expectation: {
          kind: 'negative',
          reason: `query ${parameter.name} ${what}`,
          field: parameter.name,
          location: 'query',
        },
      });
    }
  }
  for (const parameter of parametersIn(operation, 'header')) {
    // the X-Signature-* headers are the signing's own: signature_enforcement varies them with a signature to match
    if (!parameter.schema || /^x-signature-/i.test(parameter.name)) continue;
    for (const [what, value] of headerValues(parameter.schema)) {
      if (valueIsValid(run, `${operation.id}:header:${parameter.name}`, parameter.schema, value)) continue;
      const request = buildRequest(
        operation,
        { body: base, mediaType, query: required, headers: { [parameter.name]: value } },
        run.audio,
      );
      mutations.push({
        label: `header ${parameter.name} ${what}`,
        request,
        expectation: {
          kind: 'negative',
          reason: `header ${parameter.name} ${what}`,
          field: parameter.name,
          location: 'header',
        },
      });
    }
  }
  for (const parameter of parametersIn(operation, 'path')) {
    if (parameter.schema?.format !== 'uuid') continue;
    const request = buildRequest(
      operation,
      { body: base, mediaType, query: required, path: { [parameter.name]: 'not-a-uuid' } },
      run.audio,
    );
    mutations.push({
      label: `malformed path ${parameter.name}`,
      request,
      expectation: {
        kind: 'negative',
        reason: `path ${parameter.name} not a UUID`,
        field: parameter.name,
        location: 'path',
      },
    });
  }
  return mutations;
}

export async function runNegative(run: RunContext): Promise<void> {
  for (const operation of run.operations()) {
    if (run.skipUnimplemented(operation, 'negative')) continue;
    // every request media type: a rule of the multipart form is not provoked by mutating the JSON body
    const mediaTypes = bodyMediaTypes(operation);
    const bases = new Map(mediaTypes.map((mediaType) => [mediaType, baseBody(run, operation, mediaType)]));
    const mutations: Mutation[] = [];
    for (const [mediaType, base] of bases) {
      if (base && typeof base === 'object' && !Array.isArray(base))
        mutations.push(
          ...bodyMutations(run, operation, mediaType, base as Record<string, unknown>).map((mutation) =>
            mediaTypes.length > 1 ? { ...mutation, label: `${mutation.label} (${mediaType})` } : mutation,
          ),
        );
    }
    // an operation that takes only a form must refuse the JSON body a client may try (415, not a 2xx or a 5xx)
    if (mediaTypes.length > 0 && !mediaTypes.includes('application/json')) {
      const base = bases.get(mediaTypes[0]!);
      mutations.push({
        label: `a JSON body where ${mediaTypes.join(' or ')} is taken`,
        request: {
          method: operation.method,
          path: buildRequest(operation, { query: requiredQuery(run, operation) }, run.audio).path,
          headers: {},
          body: { kind: 'raw', text: JSON.stringify(base ?? {}), contentType: 'application/json' },
        },
        expectation: { kind: 'negative', reason: 'wrong Content-Type' },
      });
    }
    // parameters do not depend on the body: once, with the first media type's valid body
    const mediaType = mediaTypes[0];
    mutations.push(...parameterMutations(run, operation, mediaType ? bases.get(mediaType) : undefined, mediaType));
    if (mutations.length === 0) continue;
    for (const mutation of mutations) {
      await run.exchange(mutation.request, {
        phase: 'negative',
        label: mutation.label,
        operation,
        expectation: mutation.expectation,
      });
    }
    await run.activeChecks(operation, 'negative');
  }
}
