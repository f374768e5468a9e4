// A streamed chat answer as an async iterator of its text tokens: the request goes with `stream: true`, the server-sent
// events are read until `data: [DONE]`, and an in-band `data: {"error": …}` (a failure after the answer started) ends
// the iteration with a ChatStreamError. An error answer before the stream starts is a ScribeApiError.
import type { Client } from '../../generated/client/client/index.ts';
import { createChatCompletion } from '../../generated/client/sdk.gen.ts';
import type {
  ChatCompletionRequest,
  ChatCompletionStreamEvent,
  ErrorObject,
} from '../../generated/client/types.gen.ts';
import { ScribeApiError } from './api-error.ts';

export class ChatStreamError extends Error {
  override readonly name = 'ChatStreamError';
  constructor(readonly error: ErrorObject) {
    super(`${error.code}: ${error.message}`);
  }
}

/** The `data:` payloads of a server-sent event stream, one per event. */
async function* eventData(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  const reader = body.getReader();
  let buffer = '';
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    buffer += decoder.decode(read.value, { stream: true }).replace(/\r\n/g, '\n');
    for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
      const data = buffer
        .slice(0, end)
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).replace(/^ /, ''))
        .join('\n');
      buffer = buffer.slice(end + 2);
      if (data) yield data;
    }
  }
}

export async function* streamChatCompletion(
  client: Client,
  request: Omit<ChatCompletionRequest, 'stream'>,
): AsyncGenerator<string> {
  const { data, error, response } = await createChatCompletion({
    client,
    body: { ...request, stream: true },
    // The generated type describes the JSON answer only; with stream: true the body is an event stream.
    parseAs: 'stream',
  });
  const body: unknown = data;
  if (!response.ok || !(body instanceof ReadableStream)) throw ScribeApiError.from(response, error);
  for await (const raw of eventData(body as ReadableStream<Uint8Array>)) {
    if (raw === '[DONE]') return;
    const event = JSON.parse(raw) as Exclude<ChatCompletionStreamEvent, '[DONE]'>;
    if ('error' in event) throw new ChatStreamError(event.error);
    for (const choice of event.choices) if (choice.delta.content) yield choice.delta.content;
  }
}
