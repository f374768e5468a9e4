// Settings of text generation, read by loadConfig (config.ts) from the same environment as the rest of the server.
export type ChatModelId = 'service-mini' | 'service-pro';

export interface ChatConfig {
  /** Per model id: a GGUF path (llama engine) or `openai:<base-url>#<model>` (upstream); unset = not configured. */
  models: Partial<Record<ChatModelId, string>>;
  /** Bearer key sent to an upstream chat server (SCRIBE_CHAT_API_KEY). */
  upstreamApiKey: string | undefined;
  /** Context size allocated per llama model (capped by the model's training context). */
  contextSize: number;
  /** CPU threads per llama model. */
  threads: number;
  /** Generations run at once per llama model. */
  parallel: number;
  /** Requests that may wait per model; one more is 503 engine_unavailable (busy). */
  maxWaiting: number;
  /** Requests of one account that may wait per model; one more is 429 too_many_concurrent_jobs. */
  maxWaitingPerAccount: number;
  /** Answer tokens reserved at most per request (the reservation is prompt + min(max_tokens, this)). */
  reserveCapTokens: number;
}

/** The environment variable that configures each chat model (named in the 503 message when it is unset). */
export const chatModelVariables: Record<ChatModelId, string> = {
  'service-mini': 'SCRIBE_MINI_MODEL',
  'service-pro': 'SCRIBE_PRO_MODEL',
};

function count(env: Record<string, string | undefined>, name: string, fallback: number, min = 1): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) throw new Error(`${name} must be an integer ≥ ${min}, got "${raw}"`);
  return value;
}

export function loadChatConfig(env: Record<string, string | undefined>): ChatConfig {
  return {
    models: {
      ...(env.SCRIBE_MINI_MODEL ? { 'service-mini': env.SCRIBE_MINI_MODEL } : {}),
      ...(env.SCRIBE_PRO_MODEL ? { 'service-pro': env.SCRIBE_PRO_MODEL } : {}),
    },
    upstreamApiKey: env.SCRIBE_CHAT_API_KEY || undefined,
    contextSize: count(env, 'SCRIBE_CHAT_CONTEXT', 4096),
    threads: count(env, 'SCRIBE_CHAT_THREADS', 1),
    parallel: count(env, 'SCRIBE_CHAT_PARALLEL', 1),
    maxWaiting: count(env, 'SCRIBE_CHAT_QUEUE', 16, 0),
    maxWaitingPerAccount: count(env, 'SCRIBE_CHAT_ACCOUNT_QUEUE', 4, 0),
    reserveCapTokens: count(env, 'SCRIBE_CHAT_RESERVE_TOKENS', 4096),
  };
}
