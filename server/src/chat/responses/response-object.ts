// The `response` object of the Responses API for one chat call: its ids come from the call's chat completion id
// (`chatcmpl-<hex>` → `resp_<hex>`, `msg_<hex>`), the request's settings are echoed as OpenAI echoes them, and the
// answer is its text as an assistant message item followed by a `function_call` item per tool call (an answer that
// only calls tools has no message item); `in_progress` (no output, no usage) is what a stream announces first.
import { randomUUID } from 'node:crypto';
import type {
  ChatToolCall,
  OpenAiResponse,
  OpenAiResponseFunctionCall,
  OpenAiResponseOutputItem,
  OpenAiResponseOutputMessage,
  OpenAiResponseRequest,
} from '../../../../generated/client/types.gen.ts';
import type { GenerateResult } from '../engine/engine.ts';

export interface ResponseIds {
  id: string;
  itemId: string;
  createdAt: number;
}

export function responseIdsOf(chatId: string, created: number): ResponseIds {
  const hex = chatId.replace(/^chatcmpl-/, '');
  return { id: `resp_${hex}`, itemId: `msg_${hex}`, createdAt: created };
}

/** A new id of a `function_call` item (its `call_id` is chat's tool call id). */
export const functionCallItemId = () => `fc_${randomUUID().replace(/-/g, '')}`;

type ItemStatus = OpenAiResponseOutputMessage['status'];

/** The message item of an answer's text. */
export function outputMessageOf(ids: ResponseIds, text: string, status: ItemStatus): OpenAiResponseOutputMessage {
  return {
    type: 'message',
    id: ids.itemId,
    status,
    role: 'assistant',
    content: [{ type: 'output_text', text, annotations: [] }],
  };
}

/** The `function_call` item of one tool call. */
export function functionCallOf(itemId: string, call: ChatToolCall, status: ItemStatus): OpenAiResponseFunctionCall {
  return {
    type: 'function_call',
    id: itemId,
    call_id: call.id,
    name: call.function.name,
    arguments: call.function.arguments,
    status,
  };
}

/** Whether max_output_tokens (or the context window) cut the answer: its last item is then `incomplete`. */
export const isCut = (result: GenerateResult) => result.finishReason === 'length';

/** The output of a whole answer: its text (unless it only calls tools), then its calls, in the order generated. */
export function outputOf(ids: ResponseIds, result: GenerateResult, calls: ChatToolCall[]): OpenAiResponseOutputItem[] {
  const items: OpenAiResponseOutputItem[] = [
    ...(result.content || !calls.length ? [outputMessageOf(ids, result.content, 'completed')] : []),
    ...calls.map((call) => functionCallOf(functionCallItemId(), call, 'completed')),
  ];
  if (isCut(result)) items.at(-1)!.status = 'incomplete';
  return items;
}

/** The response before its answer (`done` undefined) or with it. */
export function responseOf(
  body: OpenAiResponseRequest,
  temperature: number,
  ids: ResponseIds,
  done?: { result: GenerateResult; output: OpenAiResponseOutputItem[] },
): OpenAiResponse {
  const result = done?.result;
  const cut = result !== undefined && isCut(result);
  const tools = body.tools ?? [];
  return {
    id: ids.id,
    object: 'response',
    created_at: ids.createdAt,
    status: result === undefined ? 'in_progress' : cut ? 'incomplete' : 'completed',
    error: null,
    incomplete_details: cut ? { reason: 'max_output_tokens' } : null,
    instructions: body.instructions ?? null,
    max_output_tokens: body.max_output_tokens ?? null,
    model: body.model,
    output: done?.output ?? [],
    parallel_tool_calls: body.parallel_tool_calls ?? true,
    temperature,
    top_p: body.top_p ?? null,
    text: { format: body.text?.format ?? { type: 'text' } },
    tool_choice: body.tool_choice ?? (tools.length ? 'auto' : 'none'),
    tools,
    store: false,
    metadata: body.metadata ?? {},
    usage:
      result === undefined
        ? null
        : {
            input_tokens: result.promptTokens,
            input_tokens_details: { cached_tokens: 0 },
            output_tokens: result.completionTokens,
            output_tokens_details: { reasoning_tokens: 0 },
            total_tokens: result.promptTokens + result.completionTokens,
          },
  };
}
