// Chat with streamed tokens: the chat models and their status come from /v3/models; with none available the page
// says so (and how to configure one) instead of offering a box that can only fail. Answers are read as server-sent
// events, token by token, until `data: [DONE]`; an in-band error event ends the answer with the contract's error.
import {
  createChatCompletion,
  listModels,
  ScribeApiError,
  type ChatCompletionStreamEvent,
  type ChatModelId,
  type Client,
  type Model,
} from '../../client/src/index.ts';

/** Every model of the server with its status (the page reads the chat models and the transcription languages). */
export async function serverModels(client: Client): Promise<Model[]> {
  const { data, error, response } = await listModels({ client });
  if (!data) throw ScribeApiError.from(response, error);
  return data.data;
}

/** The `data:` payloads of a server-sent event stream. */
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

export class ChatStreamError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(`${code}: ${message}`);
  }
}

export async function streamChat(
  client: Client,
  request: { model: ChatModelId; prompt: string; maxTokens: number | undefined },
  onToken: (text: string) => void,
): Promise<void> {
  const { data, error, response } = await createChatCompletion({
    client,
    body: {
      model: request.model,
      messages: [{ role: 'user', content: request.prompt }],
      max_tokens: request.maxTokens,
      stream: true,
    },
    // The generated type describes the JSON answer only; with stream: true the body is an event stream.
    parseAs: 'stream',
  });
  const body: unknown = data;
  if (!response.ok || !(body instanceof ReadableStream)) throw ScribeApiError.from(response, error);
  for await (const raw of eventData(body as ReadableStream<Uint8Array>)) {
    if (raw === '[DONE]') return;
    const event = JSON.parse(raw) as Exclude<ChatCompletionStreamEvent, '[DONE]'>;
    if ('error' in event) throw new ChatStreamError(event.error.code, event.error.message);
    for (const choice of event.choices) if (choice.delta.content) onToken(choice.delta.content);
  }
}
