// Function calling on the llama engine. The tools are always shown to the model the way its chat wrapper documents
// functions (node-llama-cpp's `functions`), so the prompt is the same whatever `tool_choice` says. Under `auto` the
// model chooses: node-llama-cpp detects a call in the model's own syntax and constrains its parameters with a grammar
// of the function's schema. node-llama-cpp cannot make a model call a function, so under `required` or a named
// function the answer is generated under a grammar of one call, `{"name": <function>, "arguments": <its schema>}`,
// and read here, its arguments handed on piece by piece as they are generated.
import type { ChatModelFunctions } from 'node-llama-cpp';
import type { GeneratedToolCall, ToolCallPiece, ToolUse } from './engine.ts';

/** The functions as node-llama-cpp documents them to the model; undefined when the answer is text (`none`). */
export function chatFunctionsOf(tools: ToolUse | undefined): ChatModelFunctions | undefined {
  if (!tools || tools.choice === 'none' || tools.functions.length === 0) return undefined;
  return Object.fromEntries(
    tools.functions.map((tool) => [
      tool.name,
      { ...(tool.description ? { description: tool.description } : {}), params: tool.parameters as never },
    ]),
  );
}

/** Whether the answer must be a call (`required` or a named function) rather than the model's choice. */
export const isForcedCall = (tools: ToolUse | undefined): tools is ToolUse =>
  tools !== undefined && tools.functions.length > 0 && tools.choice !== 'none' && tools.choice !== 'auto';

/** The JSON schema of one call of the functions `tool_choice` allows; the name comes first, so it is read first. */
export function forcedCallSchema(tools: ToolUse): object {
  const { choice } = tools;
  const allowed =
    typeof choice === 'object' ? tools.functions.filter((tool) => tool.name === choice.name) : tools.functions;
  const calls = allowed.map((tool) => ({
    type: 'object',
    properties: { name: { const: tool.name }, arguments: tool.parameters },
    required: ['name', 'arguments'],
    additionalProperties: false,
  }));
  return calls.length === 1 ? calls[0]! : { oneOf: calls };
}

/** The call up to its arguments' first character (so spaces before them are never taken for arguments). */
const CALL_HEAD = /^\s*\{\s*"name"\s*:\s*"((?:[^"\\]|\\.)*)"\s*,\s*"arguments"\s*:\s*(?=\S)/;

/**
 * Reads a forced call's text as it is generated: once its name is whole, the call's first piece goes out; then the
 * arguments' text, except what may still be the closing brace of the call itself (trailing braces and spaces wait
 * for the next text or the end).
 */
export function createForcedCallReader(onPiece: (piece: ToolCallPiece) => void) {
  let text = '';
  let name: string | undefined;
  let argumentsStart = 0;
  let handedOn = 0;

  return {
    add(chunk: string) {
      text += chunk;
      if (name === undefined) {
        const head = CALL_HEAD.exec(text);
        if (!head) return;
        name = JSON.parse(`"${head[1]}"`) as string;
        argumentsStart = head[0].length;
        onPiece({ index: 0, name, arguments: '' });
      }
      const safe = text.slice(argumentsStart).replace(/[\s}]*$/, '');
      if (safe.length > handedOn) {
        onPiece({ index: 0, arguments: safe.slice(handedOn) });
        handedOn = safe.length;
      }
    },
    /** The call once the model stopped (none when its name never became whole: the answer was cut before). */
    end(): GeneratedToolCall | undefined {
      if (name === undefined) return undefined;
      const args = text.slice(argumentsStart).replace(/\s*\}\s*$/, '');
      if (args.length > handedOn) onPiece({ index: 0, arguments: args.slice(handedOn) });
      handedOn = args.length;
      return { name, arguments: args };
    },
  };
}
