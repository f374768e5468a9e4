// `scribe-client chat "…"`: asks a chat model with `stream: true` and prints each token of the SSE answer as it
// arrives (`data: {chunk}` events until `data: [DONE]`; an in-band `data: {"error": …}` ends it as an error).
import { parseArgs } from 'node:util';
import type { Client } from '../../../generated/client/client/index.ts';
import type { ChatModelId } from '../../../generated/client/types.gen.ts';
import { ChatStreamError, streamChatCompletion } from '../stream-chat-completion.ts';
import { CliError } from './cli-error.ts';

export const chatUsage =
  'scribe-client chat "MESSAGE" [--model service-mini|service-pro] [--max-tokens N] [--temperature T]';

/** A number option as given, or undefined when absent; its range is the server's to check (the contract's 400). */
function numberOption(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (value.trim() === '' || !Number.isFinite(number)) throw new CliError(`--${name} must be a number`, 2);
  return number;
}

export async function chatCommand(client: Client, argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      model: { type: 'string', default: 'service-mini' },
      'max-tokens': { type: 'string' },
      temperature: { type: 'string' },
    },
  });
  const message = positionals.join(' ');
  if (!message) throw new CliError(`Usage: ${chatUsage}`, 2);
  const maxTokens = numberOption('max-tokens', values['max-tokens']);
  const temperature = numberOption('temperature', values.temperature);
  try {
    for await (const token of streamChatCompletion(client, {
      model: values.model as ChatModelId,
      messages: [{ role: 'user', content: message }],
      max_tokens: maxTokens,
      temperature,
    }))
      process.stdout.write(token);
  } catch (error) {
    if (error instanceof ChatStreamError) throw new CliError(error.message);
    throw error;
  }
  process.stdout.write('\n');
  return 0;
}
