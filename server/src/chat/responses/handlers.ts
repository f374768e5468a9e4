// POST /v3/responses: OpenAI's Responses API over the chat service — the same engines, reservation, charge and
// errors as POST /v3/chat/completions, answered as a `response` object or its stream of Responses events.
import { accountOf, type HandlerGroup, type Reply } from '../../http/operation.ts';
import type { ChatService } from '../chat-service.ts';
import { SSE_HEADERS } from '../sse-stream.ts';
import { outputOf, responseIdsOf, responseOf } from './response-object.ts';
import { callOfResponse, responsesErrorOf } from './responses-call.ts';
import { streamResponse } from './responses-stream.ts';

export function responsesHandlers(chat: ChatService): HandlerGroup {
  return {
    createOpenAiResponse: async (request): Promise<Reply<'createOpenAiResponse'>> => {
      const { body } = request;
      const call = callOfResponse(body, accountOf(request), request.signal);
      if (body.stream) {
        const sse = await streamResponse(chat, body, call);
        return { status: 200, body: sse.readable as never, headers: SSE_HEADERS };
      }
      const completion = await chat.complete(call).catch((error: unknown) => {
        throw responsesErrorOf(error);
      });
      const [choice] = completion.choices;
      const calls = choice?.message.tool_calls ?? [];
      const result = {
        content: choice?.message.content ?? '',
        finishReason: choice?.finish_reason ?? 'stop',
        promptTokens: completion.usage.prompt_tokens,
        completionTokens: completion.usage.completion_tokens,
      };
      const ids = responseIdsOf(completion.id, completion.created);
      return {
        status: 200,
        body: responseOf(body, call.temperature, ids, { result, output: outputOf(ids, result, calls) }),
      };
    },
  };
}
