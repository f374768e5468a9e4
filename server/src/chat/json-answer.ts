// The JSON modes of `response_format`. The answer is generated under a grammar (node-llama-cpp's JSON grammar, or one
// built from the schema) and then checked here, because the grammar does not enforce everything: node-llama-cpp's
// schema grammar emits every key whatever `required` says, ignores minimum/maximum/pattern and breaks on `anyOf`
// (so `anyOf` is rewritten to `oneOf` for the grammar only). An answer that fails the check is never a success.
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsPlugin from 'ajv-formats';
import type { ChatResponseFormat } from '../../../generated/client/types.gen.ts';
import { errors } from '../http/api-error.ts';
import type { AnswerFormat } from './engine/engine.ts';

const addFormats = addFormatsPlugin as unknown as typeof addFormatsPlugin.default;
const ajv = addFormats(new Ajv2020({ strict: false, allErrors: false }));

/** A copy of the schema with every `anyOf` turned into `oneOf` (for the grammar; validation uses the original). */
export function anyOfToOneOf(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(anyOfToOneOf);
  if (schema === null || typeof schema !== 'object') return schema;
  return Object.fromEntries(
    Object.entries(schema).map(([key, value]) => [key === 'anyOf' ? 'oneOf' : key, anyOfToOneOf(value)]),
  );
}

export interface JsonAnswerCheck {
  format: AnswerFormat;
  /** Throws unless `content` is an answer of the format; returns nothing for plain text. */
  check(content: string): void;
}

function invalidAnswer(message: string): Error {
  return Object.assign(new Error(message), { invalidAnswer: true });
}

export const isInvalidAnswer = (error: unknown): boolean =>
  Boolean(error && typeof error === 'object' && 'invalidAnswer' in error);

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
          throw invalidAnswer('The answer is not complete JSON.');
        }
        if (value === null || typeof value !== 'object' || Array.isArray(value))
          throw invalidAnswer('The answer is not a JSON object.');
      },
    };
  }
  const { schema } = responseFormat.json_schema;
  let validate: ValidateFunction;
  try {
    validate = ajv.compile(schema);
  } catch (error) {
    throw errors.invalidParameter(
      'response_format.json_schema.schema',
      `response_format.json_schema.schema is not a valid JSON Schema: ${(error as Error).message}`,
    );
  }
  return {
    format: { type: 'json_schema', schema: anyOfToOneOf(schema) as object },
    check(content) {
      let value: unknown;
      try {
        value = JSON.parse(content);
      } catch {
        throw invalidAnswer('The answer is not complete JSON.');
      }
      if (!validate(value)) {
        const first = validate.errors?.[0];
        throw invalidAnswer(
          `The answer does not satisfy the schema ${responseFormat.json_schema.name}: ` +
            `${first?.instancePath || '(root)'} ${first?.message ?? 'is invalid'}.`,
        );
      }
    },
  };
}
