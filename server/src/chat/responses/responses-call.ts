// A Responses API request read as a chat call: `instructions` is a system message before `input`, a string input is
// one user message, `max_output_tokens` is `max_tokens`, `text.format` is `response_format` (its json_schema fields
// moved under `json_schema`), the flat function tools are chat's `tools[].function`, and `function_call` /
// `function_call_output` items are chat's assistant tool calls and `tool` messages. What needs stored responses
// (`previous_response_id`, `conversation`) is refused by the contract's validation before this runs, and an
// `item_reference` here; errors the chat service raises in chat's names are renamed to the fields of this request.
import type {
  ChatResponseFormat,
  ChatTool,
  OpenAiChatMessage,
  OpenAiResponseInputItem,
  OpenAiResponseRequest,
  OpenAiResponseTextFormat,
} from '../../../../generated/client/types.gen.ts';
import type { AccountRow } from '../../accounts/store.ts';
import { ApiError, errors } from '../../http/api-error.ts';
import type { ChatCall } from '../chat-service.ts';
import { DEFAULT_TEMPERATURE } from '../handlers.ts';
import { promptMessagesOf } from '../openai-messages.ts';
import type { ToolRequest } from '../tool-calls.ts';

/** `text.format` in chat's `response_format` shape. */
export function responseFormatOf(format: OpenAiResponseTextFormat | undefined): ChatResponseFormat | undefined {
  if (!format || format.type !== 'json_schema') return format;
  const { type, ...definition } = format;
  return { type, json_schema: definition };
}

/** Text parts joined with newlines (validation admits text parts only). */
const textOf = (content: string | { text: string }[]) =>
  typeof content === 'string' ? content : content.map((part) => part.text).join('\n');

/**
 * An item this server cannot honour: a reference names an item OpenAI would have stored with an earlier response,
 * and nothing is stored here. The AI SDK's OpenAI provider sends one for each earlier assistant text unless its
 * `store` option is false.
 */
function itemReferenceRefusal(id: string, index: number): ApiError {
  const param = `input.${index}`;
  return errors.invalidParameter(
    param,
    `${param} is an item_reference (to ${id}), but this server stores no responses or items: send the full item ` +
      "instead (with the Vercel AI SDK's OpenAI provider, set providerOptions.openai.store to false).",
  );
}

/** One input item as chat messages, appended to `messages` (a call joins the assistant turn just before it). */
function appendItem(messages: OpenAiChatMessage[], item: OpenAiResponseInputItem, index: number): void {
  if (item.type === 'item_reference') throw itemReferenceRefusal(item.id, index);
  if (item.type === 'function_call') {
    const call = {
      id: item.call_id,
      type: 'function' as const,
      function: { name: item.name, arguments: item.arguments },
    };
    const last = messages.at(-1);
    if (last?.role === 'assistant') last.tool_calls = [...(last.tool_calls ?? []), call];
    else messages.push({ role: 'assistant', content: null, tool_calls: [call] });
    return;
  }
  if (item.type === 'function_call_output') {
    messages.push({ role: 'tool', tool_call_id: item.call_id, content: textOf(item.output) });
    return;
  }
  messages.push({ role: item.role, content: textOf(item.content) });
}

/** The input as chat messages (`developer` is read as `system` by `promptMessagesOf`). */
function messagesOf(body: OpenAiResponseRequest): OpenAiChatMessage[] {
  const messages: OpenAiChatMessage[] = body.instructions ? [{ role: 'system', content: body.instructions }] : [];
  if (typeof body.input === 'string') return [...messages, { role: 'user', content: body.input }];
  body.input.forEach((item, index) => appendItem(messages, item, index));
  return messages;
}

/** The flat function tools, choice and parallelism as chat's (undefined: none asked). */
function toolRequestOf(body: OpenAiResponseRequest): ToolRequest | undefined {
  const { tools, tool_choice: choice, parallel_tool_calls: parallel } = body;
  if (!tools?.length && (choice === undefined || choice === null)) return undefined;
  const chatTools = (tools ?? []).map(({ name, description, parameters, strict }): ChatTool => ({
    type: 'function',
    function: {
      name,
      ...(description !== undefined && description !== null ? { description } : {}),
      ...(parameters !== undefined && parameters !== null ? { parameters } : {}),
      ...(strict !== undefined ? { strict } : {}),
    },
  }));
  return {
    tools: chatTools,
    ...(choice !== undefined && choice !== null
      ? { choice: typeof choice === 'string' ? choice : { type: 'function', function: { name: choice.name } } }
      : {}),
    ...(parallel !== undefined && parallel !== null ? { parallel } : {}),
  };
}

export function callOfResponse(body: OpenAiResponseRequest, account: AccountRow, signal: AbortSignal): ChatCall {
  const responseFormat = responseFormatOf(body.text?.format);
  const tools = toolRequestOf(body);
  return {
    account,
    model: body.model,
    messages: promptMessagesOf(messagesOf(body)),
    temperature: body.temperature ?? DEFAULT_TEMPERATURE,
    maxTokens: body.max_output_tokens ?? undefined,
    ...(responseFormat ? { responseFormat } : {}),
    ...(tools ? { tools } : {}),
    includeUsage: false,
    billing: 'charge',
    signal,
  };
}

/** Chat's field names as this request spells them (its function tools and named choice are flat). */
const renamed = (text: string) =>
  text
    .replaceAll('response_format.json_schema.', 'text.format.')
    .replaceAll('response_format', 'text.format')
    .replace(/\btools\.(\d+)\.function\./g, 'tools.$1.')
    .replaceAll('tool_choice.function.name', 'tool_choice.name')
    .replace(/^The messages have/, 'The input has');

/** An error of the chat service with the fields it names renamed to this request's (`messages` is `input`). */
export function responsesErrorOf(error: unknown): unknown {
  if (!(error instanceof ApiError) || error.param === null) return error;
  const param = error.param === 'messages' ? 'input' : renamed(error.param);
  if (param === error.param) return error;
  return new ApiError(error.status, error.code, renamed(error.message), param, error.headers);
}
