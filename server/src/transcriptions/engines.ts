// Which transcription engine serves `service-transcribe`, from config: `pocketsphinx` (embedded, the default),
// `whisper` when SCRIBE_WHISPER_MODEL names a whisper.cpp model file, or `openai:<base-url>#<model>` (an
// OpenAI-compatible upstream, for example a faster-whisper server or a second Scribe).
// An embedded engine that is not installed becomes an unavailable engine (see engine/unavailable.ts), not a failed
// start: the rest of the server works without it.
import { ConfigError, type TranscriptionConfig } from '../config.ts';
import { EngineError, type TranscriptionEngine } from './engine/engine.ts';
import { createOpenAiCompatibleEngine } from './engine/openai-compatible.ts';
import { createPocketSphinxEngine } from './engine/pocketsphinx/engine.ts';
import { createUnavailableEngine } from './engine/unavailable.ts';
import { WHISPER_LANGUAGES } from './engine/whisper/languages.ts';
import { createWhisperEngine } from './engine/whisper/engine.ts';

function whisperEngine(config: TranscriptionConfig, modelPath: string): TranscriptionEngine {
  const { processes, streamProcesses, threads, temperatureInc, maxRssMb } = config.whisper;
  try {
    return createWhisperEngine({
      modelPath,
      processes,
      streamProcesses,
      ...(threads ? { threads } : {}),
      ...(maxRssMb ? { maxRssMb } : {}),
      ...(temperatureInc === undefined ? {} : { decode: { temperatureInc } }),
    });
  } catch (error) {
    if (!(error instanceof EngineError) || error.code !== 'engine_unavailable') throw error;
    return createUnavailableEngine(
      { id: 'whisper', kind: 'whisper', languages: [...WHISPER_LANGUAGES] },
      error.message,
    );
  }
}

export function createTranscriptionEngine(config: TranscriptionConfig): TranscriptionEngine {
  const whisperModel = config.whisper.modelPath;
  if (whisperModel) {
    if (config.model !== 'pocketsphinx') {
      throw new ConfigError(
        'SCRIBE_WHISPER_MODEL',
        `and SCRIBE_TRANSCRIBE_MODEL="${config.model}" both choose the speech engine: set one of them`,
      );
    }
    return whisperEngine(config, whisperModel);
  }
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
