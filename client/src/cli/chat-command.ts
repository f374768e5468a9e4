// `scribe-client chat "…"`: asks a chat model with `stream: true` and prints each token of the SSE answer as it
// arrives (`data: {chunk}` events until `data: [DONE]`; an in-band `data: {"error": …}` ends it as an error).
import { parseArgs } from 'node:util';
import type { Client } from '../../../generated/client/client/index.ts';
import { createChatCompletion } from '../../../generated/client/sdk.gen.ts';
import type { ChatCompletionStreamEvent, ChatModelId } from '../../../generated/client/types.gen.ts';
import { ScribeApiError } from '../api-error.ts';
import { CliError } from './cli-error.ts';

export const chatUsage = 'scribe-client chat "MESSAGE" [--model service-mini|service-pro] [--max-tokens N]';

async function* sseData(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffer = '';
  const reader = body.getReader();
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    buffer += decoder.decode(read.value, { stream: true }).replace(/\r\n/g, '\n');
    for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
      const event = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = event
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).replace(/^ /, ''))
        .join('\n');
      if (data) yield data;
    }
  }
}

export async function chatCommand(client: Client, argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      model: { type: 'string', default: 'service-mini' },
      'max-tokens': { type: 'string' },
    },
  });
  const message = positionals.join(' ');
  if (!message) throw new CliError(`Usage: ${chatUsage}`, 2);
  const maxTokens = values['max-tokens'] === undefined ? undefined : Number(values['max-tokens']);
  const { data, error, response } = await createChatCompletion({
    client,
    body: {
      model: values.model as ChatModelId,
      messages: [{ role: 'user', content: message }],
      stream: true,
      max_tokens: maxTokens,
    },
    // The generated type describes the JSON answer only; with stream: true the body is an event stream.
    parseAs: 'stream',
  });
  const body: unknown = data;
  if (!response.ok || !(body instanceof ReadableStream)) throw ScribeApiError.from(response, error);
  for await (const raw of sseData(body as ReadableStream<Uint8Array>)) {
    if (raw === '[DONE]') break;
    const event = JSON.parse(raw) as Exclude<ChatCompletionStreamEvent, '[DONE]'>;
    if ('error' in event) throw new CliError(`${event.error.code}: ${event.error.message}`);
    for (const choice of event.choices) if (choice.delta.content) process.stdout.write(choice.delta.content);
  }
  process.stdout.write('\n');
  return 0;
}
