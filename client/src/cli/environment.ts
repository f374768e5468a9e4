// The CLI's connection settings: the key from SCRIBE_API_KEY, the server from SCRIBE_BASE_URL.
import type { Client } from '../../../generated/client/client/index.ts';
import { createClient } from '../../../generated/client/client/index.ts';
import { CliError } from './cli-error.ts';

export const DEFAULT_BASE_URL = 'http://127.0.0.1:8080';

export function clientFromEnvironment(env: NodeJS.ProcessEnv = process.env): Client {
  const key = env.SCRIBE_API_KEY;
  if (!key)
    throw new CliError('SCRIBE_API_KEY is not set: export SCRIBE_API_KEY=sk_live_… (a v3 key of your account)', 2);
  const baseUrl = (env.SCRIBE_BASE_URL ?? DEFAULT_BASE_URL).replace(/\/+$/, '');
  try {
    new URL(baseUrl);
  } catch {
    throw new CliError(`SCRIBE_BASE_URL is not a URL: ${baseUrl}`, 2);
  }
  return createClient({ baseUrl, auth: () => key });
}

/** A fetch that failed before any answer (refused, DNS, TLS) becomes one line naming the server. */
export function unreachable(client: Client, error: unknown): CliError {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  const reason = cause?.code ?? cause?.message ?? (error as Error).message;
  return new CliError(`cannot reach ${client.getConfig().baseUrl}: ${reason}`);
}
