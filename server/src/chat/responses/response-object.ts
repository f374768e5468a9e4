// The `response` object of the Responses API for one chat call: its ids come from the call's chat completion id
// (`chatcmpl-<hex>` → `resp_<hex>`, `msg_<hex>`), the request's settings are echoed as OpenAI echoes them, and the
// answer is one assistant message item; `in_progress` (no output, no usage) is what a stream announces first.
import type {
  OpenAiResponse,
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

/** The message item of an answer: `incomplete` when max_output_tokens (or the context window) cut it. */
export function outputMessageOf(ids: ResponseIds, result: GenerateResult): OpenAiResponseOutputMessage {
  return {
    type: 'message',
    id: ids.itemId,
    status: result.finishReason === 'length' ? 'incomplete' : 'completed',
    role: 'assistant',
    content: [{ type: 'output_text', text: result.content, annotations: [] }],
  };
}

/** The response before its answer (`result` undefined) or with it. */
export function responseOf(
  body: OpenAiResponseRequest,
  temperature: number,
  ids: ResponseIds,
  result?: GenerateResult,
): OpenAiResponse {
  const cut = result?.finishReason === 'length';
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
    output: result === undefined ? [] : [outputMessageOf(ids, result)],
    parallel_tool_calls: false,
    temperature,
    top_p: body.top_p ?? null,
    text: { format: body.text?.format ?? { type: 'text' } },
    tool_choice: 'none',
    tools: [],
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
