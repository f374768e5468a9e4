// The compiled-validator cache: a validator compiled in one process is written once and read by the next instead of
// being compiled again, it answers exactly as the validator Ajv compiles in the process (same verdicts, same error
// objects, same coercion), and a damaged cache file is compiled again and replaced.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createContractAjv, inlineReferences } from './contract-ajv.ts';

const root = new URL('../../', import.meta.url).pathname;
const document = inlineReferences(JSON.parse(readFileSync(join(root, 'generated/openapi.json'), 'utf8'))) as {
  components: { schemas: Record<string, object> };
};
const schemas = Object.entries(document.components.schemas);

const test = suite('compiled-validator cache');
let dir = '';

test.before.each(() => {
  dir = mkdtempSync(join(tmpdir(), 'scribe-validator-cache-'));
  process.env.SCRIBE_VALIDATOR_CACHE_DIR = dir;
});

test.after.each(() => {
  delete process.env.SCRIBE_VALIDATOR_CACHE_DIR;
  rmSync(dir, { recursive: true, force: true });
});

/** Values of every JSON shape, and objects built from each schema's own property names so that deeper rules run. */
function samplesFor(schema: object, seed: number): unknown[] {
  const names = Object.keys((schema as { properties?: object }).properties ?? {});
  const value = fc.jsonValue({ maxDepth: 3 });
  const shaped = fc.dictionary(fc.constantFrom('type', 'id', ...names), value, { maxKeys: names.length + 1 });
  return [...fc.sample(value, { numRuns: 15, seed }), ...fc.sample(shaped, { numRuns: 25, seed })];
}

test('every contract schema: the cached validator answers as the one compiled in the process', () => {
  const written = createContractAjv({ allErrors: true });
  const plainAjv = (() => {
    delete process.env.SCRIBE_VALIDATOR_CACHE_DIR;
    const ajv = createContractAjv({ allErrors: true });
    process.env.SCRIBE_VALIDATOR_CACHE_DIR = dir;
    return ajv;
  })();
  for (const [, schema] of schemas) written.compile(structuredClone(schema));
  assert.is(readdirSync(dir).filter((f) => f.endsWith('.cjs')).length, schemas.length, 'one file per schema');

  const read = createContractAjv({ allErrors: true });
  let invalid = 0;
  schemas.forEach(([name, schema], i) => {
    const cached = read.compile(structuredClone(schema));
    const plain = plainAjv.compile(structuredClone(schema));
    for (const sample of samplesFor(schema, i + 1)) {
      const verdict = plain(structuredClone(sample));
      assert.is(cached(structuredClone(sample)), verdict, `${name}: ${JSON.stringify(sample)}`);
      assert.equal(cached.errors ?? null, plain.errors ?? null, `${name}: errors of ${JSON.stringify(sample)}`);
      if (!verdict) invalid += 1;
    }
  });
  assert.ok(invalid > schemas.length, `the samples include refused values (${invalid})`);
});

test('the next instance reads the file instead of compiling', () => {
  const schema = { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] };
  createContractAjv().compile(schema);
  const [file] = readdirSync(dir);
  assert.ok(file, 'a file was written');
  // A module that refuses everything: only a validator read from the file can answer false for a valid value.
  writeFileSync(
    join(dir, file!),
    'module.exports = (data) => false; module.exports.default = module.exports; // planted by the test',
  );
  assert.is(createContractAjv().compile(structuredClone(schema))({ n: 1 }), false);
});

test('coercion of parameters is the same when read from the file', () => {
  const schema = {
    type: 'object',
    properties: { limit: { type: 'integer', minimum: 1 }, flag: { type: 'boolean' } },
  };
  createContractAjv({ coerceTypes: true }).compile(structuredClone(schema));
  const validate = createContractAjv({ coerceTypes: true }).compile(structuredClone(schema));
  const query: Record<string, unknown> = { limit: '20', flag: 'true' };
  assert.ok(validate(query));
  assert.equal(query, { limit: 20, flag: true });
  assert.not.ok(validate({ limit: '0' }));
  assert.is(validate.errors?.[0]?.instancePath, '/limit');
  // Without coercion the same schema is another validator (another file), and refuses the strings.
  assert.not.ok(createContractAjv().compile(structuredClone(schema))({ limit: '20' }));
  assert.is(readdirSync(dir).length, 2);
});

test('a damaged file is compiled again and replaced', () => {
  const schema = { type: 'string', format: 'email' };
  createContractAjv().compile(schema);
  const [file] = readdirSync(dir);
  writeFileSync(join(dir, file!), 'this is not JavaScript {');
  const validate = createContractAjv().compile(structuredClone(schema));
  assert.ok(validate('a@example.org'));
  assert.not.ok(validate('not an address'));
  assert.match(readFileSync(join(dir, file!), 'utf8'), /"use strict"/);
});

test('without a cache directory nothing is written', () => {
  delete process.env.SCRIBE_VALIDATOR_CACHE_DIR;
  createContractAjv().compile({ type: 'string' });
  assert.equal(readdirSync(dir), []);
});

test.run();
