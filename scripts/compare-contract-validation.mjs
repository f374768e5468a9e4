// `node scripts/compare-contract-validation.mjs OLD.json [NEW.json]`: whether two bundled OpenAPI documents (for
// example `git show <rev>:generated/openapi.json > /tmp/old.json` and the current generated/openapi.json) accept
// exactly the same instances for every component schema they share. Rewriting schemas for client generators (single
// -value enums for `const`, typed `oneOf` variants, `{}` for `true`) must not change what the server validates; this
// judges each schema's examples, json-schema-faker samples and mutations of them (keys dropped, literals swapped,
// unknown and alternative fields added) with Ajv 2020 as the server configures it, and prints every disagreement.
// Exit code 1 when any instance is judged differently.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { generateSync } from 'json-schema-faker';
import { root } from './spec-tools.mjs';

const [oldPath, newPath = join(root, 'generated/openapi.json')] = process.argv.slice(2);
if (!oldPath) {
  console.error('usage: node scripts/compare-contract-validation.mjs OLD.json [NEW.json]');
  process.exit(2);
}
const read = (path) => JSON.parse(readFileSync(path, 'utf8'));
const [before, after] = [read(oldPath), read(newPath)];

function validatorsOf(document, id) {
  const ajv = new Ajv2020({ strict: false });
  addFormats(ajv);
  ajv.addFormat('binary', true);
  ajv.addKeyword('example');
  ajv.addSchema({ ...document, $id: id });
  return (name) => ajv.compile({ $ref: `${id}#/components/schemas/${name}` });
}

/** Values swapped into every field: the contract's literals and the usual wrong types. */
const literals = [
  ...['text', 'json_object', 'json_schema', 'xml', 'chat', 'stream', 'embedding', 'transcription', 'fax'],
  ...['stop', 'length', '[DONE]', 'not_found_error', 'NOT_FOUND', 'assistant', 'a.wav', ''],
  'https://media.example.com/a.mp3',
  null,
  true,
  false,
  0,
  {},
];

function* mutations(value, depth = 0) {
  yield value;
  if (depth > 2) return;
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    for (const key of Object.keys(value)) {
      const rest = { ...value };
      delete rest[key];
      yield rest;
      for (const literal of literals) yield { ...value, [key]: literal };
      for (const inner of mutations(value[key], depth + 1)) yield { ...value, [key]: inner };
    }
    yield { ...value, unknown_field: 1 };
    yield { ...value, file: 'a.wav' };
    yield { ...value, source_url: 'https://media.example.com/a.mp3' };
    yield { ...value, maxTokens: 5, max_tokens: 5 };
  }
  if (Array.isArray(value) && value.length > 0) {
    yield [];
    yield [value[0], value[0]];
  }
}

const validateBefore = validatorsOf(before, 'before');
const validateAfter = validatorsOf(after, 'after');
const shared = Object.keys(after.components.schemas).filter((name) => name in before.components.schemas);
let instances = 0;
let disagreements = 0;
for (const name of shared) {
  const [old, now] = [validateBefore(name), validateAfter(name)];
  const seeds = [
    ...(before.components.schemas[name].examples ?? []),
    ...(after.components.schemas[name].examples ?? []),
  ];
  for (let i = 0; i < 15; i++) {
    try {
      seeds.push(generateSync({ ...after.components.schemas[name], components: after.components }, { maxItems: 3 }));
    } catch {
      // A schema the faker cannot fill is still judged on its examples and their mutations.
    }
  }
  for (const seed of seeds) {
    for (const instance of mutations(seed)) {
      instances++;
      if (old(instance) === now(instance)) continue;
      disagreements++;
      console.log(`${name}: ${JSON.stringify(instance)} was ${old(instance) ? 'valid' : 'invalid'}, is not now`);
    }
  }
}
console.log(`${shared.length} shared schemas, ${instances} instances, ${disagreements} judged differently.`);
process.exit(disagreements > 0 ? 1 : 0);
