// The JSON modes of `response_format`. The answer is generated under a grammar (node-llama-cpp's JSON grammar, or one
// built from the schema) and then checked here, because the grammar does not enforce everything: node-llama-cpp's
// schema grammar emits every key whatever `required` says, ignores minimum/maximum/pattern and breaks on `anyOf`
// (so `anyOf` is rewritten to `oneOf` for the grammar only). An answer that fails the check is never a success.
import { Ajv as AjvDraft07, type ValidateFunction } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsPlugin from 'ajv-formats';
import type { ChatResponseFormat } from '../../../generated/client/types.gen.ts';
import { errors } from '../http/api-error.ts';
import type { AnswerFormat } from './engine/engine.ts';

const addFormats = addFormatsPlugin as unknown as typeof addFormatsPlugin.default;
const options = { strict: false, allErrors: false };

/**
 * One validator per JSON Schema dialect a caller may name in `$schema`, as OpenAI accepts them: 2020-12 (the default,
 * the contract's own dialect), 2019-09, and draft-07, which zod's `toJSONSchema` (and so `zodResponseFormat` and the
 * AI SDK's object generation) writes. Each is made on first use.
 */
const dialects: Record<string, () => AjvDraft07 | Ajv2019 | Ajv2020> = {
  'https://json-schema.org/draft/2020-12/schema': lazy(() => new Ajv2020(options)),
  'https://json-schema.org/draft/2019-09/schema': lazy(() => new Ajv2019(options)),
  'http://json-schema.org/draft-07/schema': lazy(() => new AjvDraft07(options)),
};

function lazy<T extends AjvDraft07>(make: () => T): () => T {
  let made: T | undefined;
  return () => {
    if (!made) {
      made = make();
      addFormats(made);
    }
    return made;
  };
}

/**
 * The validator of the schema's `$schema` (trailing `#` and http/https alike); 2020-12 when it names none. `param`:
 * the request field holding the schema, which a dialect not accepted is blamed on.
 */
export function validatorFor(
  schema: object,
  param = 'response_format.json_schema.schema',
): AjvDraft07 | Ajv2019 | Ajv2020 {
  const named = (schema as { $schema?: unknown }).$schema;
  if (named === undefined) return dialects['https://json-schema.org/draft/2020-12/schema']!();
  const key = typeof named === 'string' ? named.replace(/#$/, '') : '';
  const dialect =
    dialects[key] ?? dialects[key.replace(/^http:/, 'https:')] ?? dialects[key.replace(/^https:/, 'http:')];
  if (!dialect) {
    throw errors.invalidParameter(
      param,
      `${param} names the JSON Schema dialect ${JSON.stringify(named)}; ` +
        'the dialects accepted are 2020-12 (the default), 2019-09 and draft-07.',
    );
  }
  return dialect();
}

/** A copy of the schema with every `anyOf` turned into `oneOf` (for the grammar; validation uses the original). */
export function anyOfToOneOf(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(anyOfToOneOf);
  if (schema === null || typeof schema !== 'object') return schema;
  return Object.fromEntries(
    Object.entries(schema).map(([key, value]) => [key === 'anyOf' ? 'oneOf' : key, anyOfToOneOf(value)]),
  );
}

/** The validator of a caller's JSON Schema in its dialect; 400 naming `param` when it does not compile. */
export function compileSchema(schema: object, param: string): ValidateFunction {
  const ajv = validatorFor(schema, param);
  try {
    const validate = ajv.compile(schema);
    // Forgotten at once: Ajv keeps every compiled schema (and its `$id`, which a later request may reuse) otherwise.
    ajv.removeSchema(schema);
    return validate;
  } catch (error) {
    throw errors.invalidParameter(param, `${param} is not a valid JSON Schema: ${(error as Error).message}`);
  }
}

export interface JsonAnswerCheck {
  format: AnswerFormat;
  /**
   * Throws unless `content` is a whole answer of the format; returns nothing for plain text. An answer cut by
   * `max_tokens` is not checked: it ends with `finish_reason` `length`, as OpenAI's does.
   */
  check(content: string): void;
}

/**
 * A complete answer that is not what `response_format` asks for. The grammar enforces a JSON object (json_object) and
 * a schema's structure and types, so this is a schema whose other keywords the engine cannot enforce while generating
 * (`pattern`, `minimum`/`maximum`, `minLength`, `format`, …): the request's answer, 400 naming the schema, never a
 * 5xx that SDKs retry for the same result.
 */
export function invalidAnswer(message: string, param: string): Error {
  return Object.assign(new Error(message), { invalidAnswer: param });
}

/** The `response_format` field an invalid answer is blamed on, or undefined for any other failure. */
export const invalidAnswerParam = (error: unknown): string | undefined =>
  error && typeof error === 'object' && 'invalidAnswer' in error ? String(error.invalidAnswer) : undefined;

export const UNENFORCED =
  'the engine enforces a schema’s structure and types while generating, but not pattern, minimum/maximum, ' +
  'lengths or formats: relax those keywords or check them in your code.';

/** Reads `response_format` (400 for a schema Ajv cannot compile) into the engine's format and the answer check. */
export function answerFormatOf(responseFormat: ChatResponseFormat | undefined): JsonAnswerCheck {
  if (!responseFormat || responseFormat.type === 'text') return { format: { type: 'text' }, check: () => undefined };
  if (responseFormat.type === 'json_object') {
    return {
      format: { type: 'json_object' },
      check(content) {
        let value: unknown;
        try {
          value = JSON.parse(content);
        } catch {
          throw invalidAnswer('The answer is not complete JSON.', 'response_format');
        }
        if (value === null || typeof value !== 'object' || Array.isArray(value))
          throw invalidAnswer('The answer is not a JSON object.', 'response_format');
      },
    };
  }
  const { schema } = responseFormat.json_schema;
  const validate = compileSchema(schema, 'response_format.json_schema.schema');
  return {
    format: { type: 'json_schema', schema: anyOfToOneOf(schema) as object },
    check(content) {
      let value: unknown;
      try {
        value = JSON.parse(content);
      } catch {
        throw invalidAnswer('The answer is not complete JSON.', 'response_format.json_schema.schema');
      }
      if (!validate(value)) {
        const first = validate.errors?.[0];
        throw invalidAnswer(
          `The answer does not satisfy the schema ${responseFormat.json_schema.name}: ` +
            `${first?.instancePath || '(root)'} ${first?.message ?? 'is invalid'}; ${UNENFORCED}`,
          'response_format.json_schema.schema',
        );
      }
    },
  };
}
