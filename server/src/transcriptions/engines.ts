// Which transcription engine serves `service-transcribe`, from config: `pocketsphinx` (embedded, the default) or
// `openai:<base-url>#<model>` (an OpenAI-compatible upstream, for example a faster-whisper server or a second Scribe).
// An embedded engine that is not installed becomes an unavailable engine (see engine/unavailable.ts), not a failed
// start: the rest of the server works without it.
import { ConfigError, type TranscriptionConfig } from '../config.ts';
import { EngineError, type TranscriptionEngine } from './engine/engine.ts';
import { createOpenAiCompatibleEngine } from './engine/openai-compatible.ts';
import { createPocketSphinxEngine } from './engine/pocketsphinx/engine.ts';
import { createUnavailableEngine } from './engine/unavailable.ts';

export function createTranscriptionEngine(config: TranscriptionConfig): TranscriptionEngine {
  if (config.model === 'pocketsphinx') {
    try {
      return createPocketSphinxEngine({ workers: config.workers, nice: config.workerNice, ...config.pocketsphinx });
    } catch (error) {
      if (!(error instanceof EngineError) || error.code !== 'engine_unavailable') throw error;
      return createUnavailableEngine(
        { id: 'pocketsphinx-en-us', kind: 'pocketsphinx', languages: ['en'] },
        error.message,
      );
    }
  }
  const upstream = /^openai:(https?:\/\/[^#]+)#(.+)$/.exec(config.model);
  if (upstream) {
    return createOpenAiCompatibleEngine({
      baseUrl: upstream[1]!,
      model: upstream[2]!,
      apiKey: config.upstreamApiKey ?? '',
    });
  }
  throw new ConfigError(
    'SCRIBE_TRANSCRIBE_MODEL',
    `must be "pocketsphinx" or "openai:<base-url>#<model>", got "${config.model}"`,
  );
}
