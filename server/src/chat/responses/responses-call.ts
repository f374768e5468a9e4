// A Responses API request read as a chat call: `instructions` is a system message before `input`, a string input is
// one user message, `max_output_tokens` is `max_tokens`, `text.format` is `response_format` (its json_schema fields
// moved under `json_schema`). What needs stored responses (`previous_response_id`, `conversation`) and tools are
// refused by the contract's validation before this runs; errors the chat service raises in chat's names are renamed
// to the fields of this request.
import type {
  ChatResponseFormat,
  OpenAiChatMessage,
  OpenAiResponseRequest,
  OpenAiResponseTextFormat,
} from '../../../../generated/client/types.gen.ts';
import type { AccountRow } from '../../accounts/store.ts';
import { ApiError } from '../../http/api-error.ts';
import type { ChatCall } from '../chat-service.ts';
import { DEFAULT_TEMPERATURE } from '../handlers.ts';
import { promptMessagesOf } from '../openai-messages.ts';

/** `text.format` in chat's `response_format` shape. */
export function responseFormatOf(format: OpenAiResponseTextFormat | undefined): ChatResponseFormat | undefined {
  if (!format || format.type !== 'json_schema') return format;
  const { type, ...definition } = format;
  return { type, json_schema: definition };
}

/** The input as chat messages (text parts joined with newlines, `developer` as `system`). */
function messagesOf(body: OpenAiResponseRequest): OpenAiChatMessage[] {
  const messages: OpenAiChatMessage[] = body.instructions ? [{ role: 'system', content: body.instructions }] : [];
  if (typeof body.input === 'string') return [...messages, { role: 'user', content: body.input }];
  for (const item of body.input) {
    const content = typeof item.content === 'string' ? item.content : item.content.map((part) => part.text).join('\n');
    messages.push({ role: item.role, content });
  }
  return messages;
}

export function callOfResponse(body: OpenAiResponseRequest, account: AccountRow, signal: AbortSignal): ChatCall {
  const responseFormat = responseFormatOf(body.text?.format);
  return {
    account,
    model: body.model,
    messages: promptMessagesOf(messagesOf(body)),
    temperature: body.temperature ?? DEFAULT_TEMPERATURE,
    maxTokens: body.max_output_tokens ?? undefined,
    ...(responseFormat ? { responseFormat } : {}),
    includeUsage: false,
    billing: 'charge',
    signal,
  };
}

/** Chat's field names as this request spells them. */
const renamed = (text: string) =>
  text
    .replaceAll('response_format.json_schema.', 'text.format.')
    .replaceAll('response_format', 'text.format')
    .replace(/^The messages have/, 'The input has');

/** An error of the chat service with the fields it names renamed to this request's (`messages` is `input`). */
export function responsesErrorOf(error: unknown): unknown {
  if (!(error instanceof ApiError) || error.param === null) return error;
  const param = error.param === 'messages' ? 'input' : renamed(error.param);
  if (param === error.param) return error;
  return new ApiError(error.status, error.code, renamed(error.message), param, error.headers);
}
