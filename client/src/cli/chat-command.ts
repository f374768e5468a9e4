// `scribe-client chat "…"`: asks a chat model with `stream: true` and prints each token of the SSE answer as it
// arrives (`data: {chunk}` events until `data: [DONE]`; an in-band `data: {"error": …}` ends it as an error).
import { parseArgs } from 'node:util';
import type { Client } from '../../../generated/client/client/index.ts';
import type { ChatModelId } from '../../../generated/client/types.gen.ts';
import { ChatStreamError, streamChatCompletion } from '../stream-chat-completion.ts';
import { CliError } from './cli-error.ts';

export const chatUsage = 'scribe-client chat "MESSAGE" [--model service-mini|service-pro] [--max-tokens N]';

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
  try {
    for await (const token of streamChatCompletion(client, {
      model: values.model as ChatModelId,
      messages: [{ role: 'user', content: message }],
      max_tokens: maxTokens,
    }))
      process.stdout.write(token);
  } catch (error) {
    if (error instanceof ChatStreamError) throw new CliError(error.message);
    throw error;
  }
  process.stdout.write('\n');
  return 0;
}
