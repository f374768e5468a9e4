// The `tools`, `tool_choice` and `parallel_tool_calls` of an OpenAI chat request, read once before anything is
// generated: a choice that names no tool, a function offered twice or parameters that are no JSON Schema are 400s
// naming their field. Each function's parameters are compiled in the dialect their `$schema` names (as
// `response_format`'s are), so the arguments of a local model's calls are checked against the whole schema: the
// grammar they are generated under enforces structure and types only (json-answer.ts).
import { randomUUID } from 'node:crypto';
import type { ValidateFunction } from 'ajv';
import type { ChatTool, ChatToolCall, ChatToolChoice } from '../../../generated/client/types.gen.ts';
import { errors } from '../http/api-error.ts';
import type { GeneratedToolCall, ToolUse } from './engine/engine.ts';
import { anyOfToOneOf, compileSchema, invalidAnswer, UNENFORCED } from './json-answer.ts';

export interface ToolRequest {
  tools?: ChatTool[];
  choice?: ChatToolChoice;
  parallel?: boolean;
}

export interface ToolPlan {
  /** The tools as an upstream takes them (the caller's schemas as sent); undefined: no tools. */
  upstream?: ToolUse;
  /** The tools as the local model takes them (`anyOf` read as `oneOf` by its grammar). */
  local?: ToolUse;
  /** Throws unless every call names an offered function with arguments valid against its parameters. */
  check(calls: GeneratedToolCall[]): void;
}

/** A function without parameters takes none: OpenAI's reading of an absent `parameters`. */
const NO_PARAMETERS = { type: 'object', properties: {}, additionalProperties: false };

export function toolPlanOf({ tools = [], choice, parallel = true }: ToolRequest): ToolPlan {
  const effective = choice ?? (tools.length ? 'auto' : 'none');
  if (!tools.length) {
    if (effective !== 'none' && effective !== 'auto') {
      throw errors.invalidParameter('tool_choice', 'tool_choice other than none or auto needs tools.');
    }
    return { check: () => undefined };
  }
  const names = tools.map((tool) => tool.function.name);
  names.forEach((name, index) => {
    if (names.indexOf(name) !== index) {
      throw errors.invalidParameter(
        `tools.${index}.function.name`,
        `tools.${index}.function.name repeats the function ${JSON.stringify(name)}; names must be unique.`,
      );
    }
  });
  if (typeof effective === 'object' && !names.includes(effective.function.name)) {
    throw errors.invalidParameter(
      'tool_choice.function.name',
      `tool_choice names the function ${JSON.stringify(effective.function.name)}, which is not among the tools ` +
        `(${names.join(', ')}).`,
    );
  }
  const validators = new Map<string, { validate: ValidateFunction; param: string }>();
  tools.forEach((tool, index) => {
    const param = `tools.${index}.function.parameters`;
    validators.set(tool.function.name, {
      validate: compileSchema(tool.function.parameters ?? NO_PARAMETERS, param),
      param,
    });
  });
  const useOf = (read: (schema: object) => object): ToolUse => ({
    functions: tools.map(({ function: { name, description, parameters } }) => ({
      name,
      ...(description !== undefined ? { description } : {}),
      parameters: read(parameters ?? NO_PARAMETERS),
    })),
    choice: typeof effective === 'object' ? { name: effective.function.name } : effective,
    parallel,
  });
  return {
    upstream: useOf((schema) => schema),
    local: useOf((schema) => anyOfToOneOf(schema) as object),
    check(calls) {
      for (const call of calls) {
        const known = validators.get(call.name);
        if (!known) throw invalidAnswer(`The answer calls ${JSON.stringify(call.name)}, which is not a tool.`, 'tools');
        let value: unknown;
        try {
          value = JSON.parse(call.arguments);
        } catch {
          throw invalidAnswer(`The arguments of the call of ${call.name} are not complete JSON.`, known.param);
        }
        if (!known.validate(value)) {
          const first = known.validate.errors?.[0];
          throw invalidAnswer(
            `The arguments of the call of ${call.name} do not satisfy its parameters: ` +
              `${first?.instancePath || '(root)'} ${first?.message ?? 'is invalid'}; ${UNENFORCED}`,
            known.param,
          );
        }
      }
    },
  };
}

/** A new tool call id, in OpenAI's `call_` form. */
export const toolCallId = () => `call_${randomUUID().replace(/-/g, '').slice(0, 24)}`;

/** The calls of an answer in the contract's shape, each with an id of its own. */
export const toolCallsOf = (calls: GeneratedToolCall[]): ChatToolCall[] =>
  calls.map((call) => ({
    id: toolCallId(),
    type: 'function',
    function: { name: call.name, arguments: call.arguments },
  }));
