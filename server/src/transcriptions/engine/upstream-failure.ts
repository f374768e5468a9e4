// The failure of a request to an OpenAI-compatible upstream that never got an answer, as the engines report it: the
// time limit ran out, or the connection failed (DNS, refused, reset) — both `upstream_unreachable`, with the reason
// from the fetch error's cause where there is one. Shared by the transcription and embedding upstream engines.
import { EngineError } from './engine.ts';

export function unreachableUpstream(error: unknown, endpoint: string, timeout: AbortSignal, timeoutMs: number) {
  if (timeout.aborted) {
    return new EngineError('upstream_unreachable', `the upstream (${endpoint}) did not answer in ${timeoutMs} ms`, {
      cause: error,
    });
  }
  const reason = error instanceof Error ? ((error.cause as Error | undefined)?.message ?? error.message) : '';
  return new EngineError('upstream_unreachable', `cannot reach the upstream (${endpoint}): ${reason}`, {
    cause: error,
  });
}
