// Every example in both bundled documents validates against the schema it illustrates (Ajv, JSON Schema 2020-12):
// named media-type and parameter examples, schema-level `examples`, and AsyncAPI message examples.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { asyncapi, createAjv, escapePointer, openapi, validatorAt } from './documents.ts';

type Json = Record<string, unknown>;
interface Case {
  where: string;
  schemaAt: string;
  value: unknown;
}

const schemaKeywords = ['type', 'enum', 'const', 'oneOf', 'anyOf', 'allOf', 'properties', '$ref', 'items', 'format'];

/** Walks a document and collects (schema location, example value) pairs. */
function collect(document: unknown, base: string): Case[] {
  const cases: Case[] = [];
  const walk = (node: unknown, path: string) => {
    if (!node || typeof node !== 'object') return;
    if (Array.isArray(node)) {
      node.forEach((item, i) => walk(item, `${path}/${i}`));
      return;
    }
    const object = node as Json;
    // Media types, parameters and headers: `schema` next to named `examples: { name: { value } }`.
    if (object.schema && object.examples && !Array.isArray(object.examples) && typeof object.examples === 'object') {
      for (const [name, example] of Object.entries(object.examples as Record<string, Json>)) {
        if (example && 'value' in example) {
          cases.push({ where: `${path}/examples/${name}`, schemaAt: `${base}#${path}/schema`, value: example.value });
        }
      }
    }
    // AsyncAPI messages: `payload` (and `headers`) next to `examples: [{ payload, headers }]`.
    if (object.payload && Array.isArray(object.examples)) {
      object.examples.forEach((example: Json, i: number) => {
        if ('payload' in example) {
          cases.push({ where: `${path}/examples/${i}`, schemaAt: `${base}#${path}/payload`, value: example.payload });
        }
        if ('headers' in example && object.headers) {
          cases.push({
            where: `${path}/examples/${i}/headers`,
            schemaAt: `${base}#${path}/headers`,
            value: example.headers,
          });
        }
      });
    }
    // Schemas: `examples: [values]` next to a schema keyword.
    if (Array.isArray(object.examples) && !object.payload && schemaKeywords.some((k) => k in object)) {
      object.examples.forEach((value, i) =>
        cases.push({ where: `${path}/examples/${i}`, schemaAt: `${base}#${path}`, value }),
      );
    }
    for (const [key, value] of Object.entries(object)) walk(value, `${path}/${escapePointer(key)}`);
  };
  walk(document, '');
  return cases;
}

const ajv = createAjv();
const httpCases = collect(openapi, 'openapi.json');
const streamCases = collect(asyncapi, 'asyncapi.json');

test('the HTTP document has named examples for media types and examples on schemas', () => {
  const named = httpCases.filter((c) => c.where.includes('/content/'));
  assert.ok(named.length >= 60, `only ${named.length} named media-type examples`);
  assert.ok(httpCases.length >= 300, `only ${httpCases.length} examples in all`);
});

test('the AsyncAPI document has an example for every message with a JSON payload', () => {
  for (const [name, message] of Object.entries(asyncapi.components.messages)) {
    if (message.contentType === 'application/octet-stream') continue;
    const examples = message.examples as unknown[] | undefined;
    assert.ok(examples && examples.length > 0, `message ${name} has no examples`);
  }
});

test('every example of the HTTP document validates against its schema', () => {
  const failures = httpCases.flatMap((c) => {
    const error = validatorAt(ajv, c.schemaAt)(c.value);
    return error ? [`${c.where}: ${error}`] : [];
  });
  assert.equal(failures, [], failures.slice(0, 20).join('\n'));
});

test('every example of the AsyncAPI document validates against its schema', () => {
  assert.ok(streamCases.length >= 20, `only ${streamCases.length} examples`);
  const failures = streamCases.flatMap((c) => {
    const error = validatorAt(ajv, c.schemaAt)(c.value);
    return error ? [`${c.where}: ${error}`] : [];
  });
  assert.equal(failures, [], failures.slice(0, 20).join('\n'));
});

test('a wrong example is caught (the check can fail)', () => {
  const location = 'openapi.json#/components/schemas/ErrorObject';
  assert.is(
    validatorAt(ajv, location)({ type: 'invalid_request_error', code: 'invalid_parameter', message: 'x', param: null }),
    null,
  );
  assert.ok(validatorAt(ajv, location)({ type: 'nope', code: 'invalid_parameter', message: 'x', param: null }));
  assert.ok(validatorAt(ajv, location)({ type: 'invalid_request_error', code: 'invalid_parameter', message: 'x' }));
});

test.run();
