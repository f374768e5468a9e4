#!/usr/bin/env node
// `scribe-client`: transcribe, stream and chat against a Scribe server from the command line. Any failure is one
// line on stderr and a non-zero exit: 2 for bad usage or settings, 1 for everything else.
import { ScribeApiError } from '../api-error.ts';
import { StreamError } from '../connect-stream.ts';
import { chatCommand, chatUsage } from './chat-command.ts';
import { CliError } from './cli-error.ts';
import { clientFromEnvironment, unreachable } from './environment.ts';
import { streamCommand, streamUsage } from './stream-command.ts';
import { transcribeCommand, transcribeUsage } from './transcribe-command.ts';

const USAGE = `Usage:
  ${transcribeUsage}
  ${streamUsage}
  ${chatUsage}

The key comes from SCRIBE_API_KEY, the server from SCRIBE_BASE_URL (default http://127.0.0.1:8080).
Without --language, transcribe and stream send the API's default (ru) when the server's transcription model
accepts it, else the first language the model lists in /v3/models (en on the reference server), and say which.`;

const COMMANDS = { transcribe: transcribeCommand, stream: streamCommand, chat: chatCommand };
const COMMAND_USAGE = { transcribe: transcribeUsage, stream: streamUsage, chat: chatUsage };
const HELP = new Set(['--help', '-h', 'help']);

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  // No command is bad usage (stderr, exit 2); asked-for help is an answer (stdout, exit 0), for a command too.
  if (!name) throw new CliError(`a command is required\n${USAGE}`, 2);
  if (HELP.has(name)) {
    console.log(USAGE);
    return 0;
  }
  if (!(name in COMMANDS)) throw new CliError(`unknown command ${name}\n${USAGE}`, 2);
  if (rest.some((arg) => HELP.has(arg) && arg !== 'help')) {
    console.log(`Usage: ${COMMAND_USAGE[name as keyof typeof COMMANDS]}`);
    return 0;
  }
  const client = clientFromEnvironment();
  try {
    return await COMMANDS[name as keyof typeof COMMANDS](client, rest);
  } catch (error) {
    if (error instanceof TypeError && error.message === 'fetch failed') throw unreachable(client, error);
    throw error;
  }
}

function lineOf(error: unknown): { message: string; code: number } {
  if (error instanceof CliError) return { message: error.message, code: error.exitCode };
  if (error instanceof ScribeApiError || error instanceof StreamError) return { message: error.message, code: 1 };
  const code = (error as { code?: string }).code;
  if (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS'))
    return { message: (error as Error).message, code: 2 };
  return { message: error instanceof Error ? error.message : String(error), code: 1 };
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    const { message, code } = lineOf(error);
    console.error(`scribe-client: ${message}`);
    process.exitCode = code;
  },
);
