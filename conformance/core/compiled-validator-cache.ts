// Compiled validators kept on disk between processes. Compiling the contract's schemas is most of what a short-lived
// process that validates against the contract spends (a test file, a reference server started for one test, a
// conformance run): Ajv builds, optimises and evaluates the code of every schema anew in each process, ≈ 0.5 s of CPU
// for a handful of operations, because the inlined `$ref`s make each operation's schema large. Ajv can print a compiled
// validator as a standalone module (`ajv/dist/standalone`): the first process that compiles a schema writes that
// module, the next ones evaluate it (a tenth of the time). The code is the one Ajv would generate in the process
// itself, so validation, coercion and error objects are the same.
//
// Opt-in by a directory (SCRIBE_VALIDATOR_CACHE_DIR): `npm test` sets one in node_modules/.cache. A file is named by
// the hash of the schema, the Ajv options and the Ajv version, written whole (temporary file, then rename) so that
// processes compiling the same schema at once never read a half-written one; a file that cannot be read or evaluated
// is compiled again.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { AnySchema, Ajv2020, ValidateFunction } from 'ajv/dist/2020.js';
import standaloneModule from 'ajv/dist/standalone/index.js';

const require = createRequire(import.meta.url);
// A CommonJS module: its default import is `module.exports`, which carries the function as `default` too.
const standaloneCode = standaloneModule.default;
const ajvVersion = (require('ajv/package.json') as { version: string }).version;

/** The directory named by SCRIBE_VALIDATOR_CACHE_DIR, when set. */
export function validatorCacheDir(env: NodeJS.ProcessEnv = process.env): string | undefined {
  return env.SCRIBE_VALIDATOR_CACHE_DIR || undefined;
}

/** Runs a standalone validator module (CommonJS: it requires Ajv's runtime helpers and ajv-formats' formats). */
function evaluate(code: string): ValidateFunction {
  const module = { exports: {} as { default?: ValidateFunction } };
  new Function('require', 'module', 'exports', code)(require, module, module.exports);
  const validate = module.exports.default;
  if (typeof validate !== 'function') throw new Error('not a validator module');
  return validate;
}

/**
 * Makes `ajv.compile` read and write compiled validators in `dir`. `ajv` must have been made with `code.source` set
 * (and `code.formats` naming the formats as a require, for schemas with formats); `options` names what else changes
 * the generated code (coercion, all errors). A schema object compiled before is answered from memory, as Ajv does.
 */
export function cacheCompiledValidators(ajv: Ajv2020, dir: string, options: string): void {
  const compile = ajv.compile.bind(ajv) as (schema: AnySchema) => ValidateFunction;
  const compiled = new WeakMap<object, ValidateFunction>();
  let dirMade = false;
  ajv.compile = ((schema: AnySchema, meta?: boolean) => {
    if (meta || typeof schema !== 'object') return compile(schema);
    const known = compiled.get(schema);
    if (known) return known;
    const key = createHash('sha256').update(`${ajvVersion}\n${options}\n`).update(JSON.stringify(schema)).digest('hex');
    const file = join(dir, `${key}.cjs`);
    let validate: ValidateFunction | undefined;
    try {
      validate = evaluate(readFileSync(file, 'utf8'));
    } catch {
      validate = compile(schema);
      try {
        if (!dirMade) mkdirSync(dir, { recursive: true });
        dirMade = true;
        const temporary = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}`;
        writeFileSync(temporary, standaloneCode(ajv, validate));
        renameSync(temporary, file);
      } catch {
        // Only the next process's time depends on it.
      }
    }
    compiled.set(schema, validate);
    return validate;
  }) as typeof ajv.compile;
}
