// Which transcription engine serves `service-transcribe`, from config: `pocketsphinx` (embedded, the default) or
// `openai:<base-url>#<model>` (an OpenAI-compatible upstream, for example a faster-whisper server or a second Scribe).
import type { TranscriptionConfig } from '../config.ts';
import type { TranscriptionEngine } from './engine/engine.ts';
import { createOpenAiCompatibleEngine } from './engine/openai-compatible.ts';
import { createPocketSphinxEngine } from './engine/pocketsphinx/engine.ts';

export function createTranscriptionEngine(config: TranscriptionConfig): TranscriptionEngine {
  if (config.model === 'pocketsphinx') return createPocketSphinxEngine({ workers: config.workers });
  const upstream = /^openai:(https?:\/\/[^#]+)#(.+)$/.exec(config.model);
  if (upstream) {
    return createOpenAiCompatibleEngine({
      baseUrl: upstream[1]!,
      model: upstream[2]!,
      apiKey: config.upstreamApiKey ?? '',
    });
  }
  throw new Error(
    `SCRIBE_TRANSCRIBE_MODEL must be "pocketsphinx" or "openai:<base-url>#<model>", got "${config.model}"`,
  );
}
