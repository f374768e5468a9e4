// The stand-in for an embedded engine that cannot run on this machine (its library or model is not installed): the
// server still starts, /v3/models and /health list the engine as unavailable with the reason, and every transcription
// route answers 503 engine_unavailable with it, instead of the whole server refusing to start.
import { EngineError, type TranscriptionEngine } from './engine.ts';

export function createUnavailableEngine(
  identity: Pick<TranscriptionEngine, 'id' | 'kind' | 'languages'>,
  reason: string,
): TranscriptionEngine {
  return {
    ...identity,
    unavailable: reason,
    supports: () => false,
    transcribe: () => Promise.reject(new EngineError('engine_unavailable', reason)),
    close: () => Promise.resolve(),
  };
}
