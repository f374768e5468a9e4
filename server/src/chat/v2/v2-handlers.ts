// POST /v2/chat/completions (the OpenAI body, signed auth, v2 error body) and POST /v2/transcriptions/{id}/chat/
// completions (questions about a transcript, see transcript-chat.ts).
import { accountOf, type HandlerGroup, type Reply } from '../../http/operation.ts';
import type { ChatService } from '../chat-service.ts';
import { answer, callOf } from '../handlers.ts';
import { SSE_HEADERS } from '../sse-stream.ts';
import type { TranscriptChat } from './transcript-chat.ts';

/** The v2 transcript chat's default temperature (the seed's). */
const TRANSCRIPT_TEMPERATURE = 0.1;

export function v2ChatHandlers(chat: ChatService, transcripts: TranscriptChat): HandlerGroup {
  return {
    createV2ChatCompletion: async (request) =>
      answer(chat, callOf(request.body, accountOf(request), request.signal), request.body.stream),
    createV2TranscriptChatCompletion: async (request): Promise<Reply<never>> => {
      const { body } = request;
      const stream = body.stream === true;
      const result = await transcripts.ask({
        account: accountOf(request),
        transcriptionId: request.path.id,
        questions: body.messages,
        model: body.model ?? 'service-mini',
        temperature: body.temperature ?? TRANSCRIPT_TEMPERATURE,
        maxTokens: body.maxTokens ?? body.max_tokens,
        stream,
        signal: request.signal,
      });
      return 'readable' in result
        ? { status: 200, body: result.readable as never, headers: SSE_HEADERS }
        : { status: 200, body: result as never };
    },
  };
}
