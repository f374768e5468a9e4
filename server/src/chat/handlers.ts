// POST /v3/chat/completions/create and its OpenAI twin POST /v3/chat/completions: the same request (the OpenAI body
// is open and has `n` and `user`, both ignored), the same answers and errors; POST /v3/chat/completions/stream is the
// streamed form of the first as an operation of its own.
import type { ChatCompletionRequest, OpenAiChatCompletionRequest } from '../../../generated/client/types.gen.ts';
import type { AccountRow } from '../accounts/store.ts';
import { accountOf, type HandlerGroup, type Reply } from '../http/operation.ts';
import type { ChatCall, ChatService } from './chat-service.ts';
import { promptMessagesOf } from './openai-messages.ts';
import { SSE_HEADERS } from './sse-stream.ts';

export const DEFAULT_TEMPERATURE = 0.7;

/** The fields of a chat call that come from an OpenAI-shaped body. */
export function callOf(
  body: ChatCompletionRequest | OpenAiChatCompletionRequest,
  account: AccountRow,
  signal: AbortSignal,
): ChatCall {
  // Only the OpenAI body has tools (the v3 `create` body is closed, so validation refuses them there).
  const { tools, tool_choice: choice, parallel_tool_calls: parallel } = body as OpenAiChatCompletionRequest;
  return {
    account,
    model: body.model,
    messages: promptMessagesOf(body.messages),
    temperature: body.temperature ?? DEFAULT_TEMPERATURE,
    maxTokens: body.max_completion_tokens ?? body.max_tokens,
    ...(body.response_format ? { responseFormat: body.response_format } : {}),
    ...(tools !== undefined || choice !== undefined
      ? {
          tools: {
            ...(tools ? { tools } : {}),
            ...(choice ? { choice } : {}),
            ...(parallel !== undefined ? { parallel } : {}),
          },
        }
      : {}),
    includeUsage: body.stream_options?.include_usage === true,
    billing: 'charge',
    signal,
  };
}

/** A JSON completion or, with `stream: true`, the SSE body (the dispatcher pipes a stream body as it is written). */
export async function answer(chat: ChatService, call: ChatCall, stream: boolean | undefined): Promise<Reply<never>> {
  if (stream) {
    const sse = await chat.stream(call);
    return { status: 200, body: sse.readable as never, headers: SSE_HEADERS };
  }
  return { status: 200, body: (await chat.complete(call)) as never };
}

export function chatHandlers(chat: ChatService): HandlerGroup {
  return {
    createChatCompletion: async (request) =>
      answer(chat, callOf(request.body, accountOf(request), request.signal), request.body.stream),
    createOpenAiChatCompletion: async (request) =>
      answer(chat, callOf(request.body, accountOf(request), request.signal), request.body.stream),
    // The whole answer and the stream as operations of their own (one media type each, so generators type them);
    // their body schemas limit `stream` to false or true, so a body that asks for the other is refused by validation
    // before these run.
    createChatCompletionJson: async (request) =>
      answer(chat, callOf(request.body, accountOf(request), request.signal), false),
    createStreamedChatCompletion: async (request) =>
      answer(chat, callOf(request.body, accountOf(request), request.signal), true),
  };
}
