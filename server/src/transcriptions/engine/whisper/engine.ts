// The whisper transcription engine: whisper.cpp (through @fugood/whisper.node) on a ggml model file the operator
// names with SCRIBE_WHISPER_MODEL — a multilingual model (99 languages, 100 for large-v3, detection with `auto`) or
// an English-only `.en` one. Decodes run in model processes (process-pool.ts), never in the server's process. The
// file is checked before any process loads it (model-file.ts); a file that fails the check makes the engine
// unavailable, as a missing PocketSphinx does.
//
// Terms become the decoder's initial prompt, joined by commas (one term, such as the OpenAI-style route's `prompt`,
// is passed as it is): Whisper is conditioned on that text, which biases it towards those spellings; there is no
// per-word bias as in PocketSphinx.
import { stat } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import {
  EngineError,
  primaryLanguage,
  roundTime,
  type EngineTranscript,
  type TranscribeInput,
  type TranscribeOptions,
  type TranscriptionEngine,
} from '../engine.ts';
import { SAMPLE_RATE } from '../pcm-file.ts';
import { DETECT_LANGUAGE, whisperLanguageCode } from './languages.ts';
import { inspectWhisperModel, WhisperModelError, type WhisperModelInfo } from './model-file.ts';
import { WhisperProcessPool } from './process-pool.ts';
import { wordsOf } from './words.ts';

export const WHISPER_SETUP_HINT =
  'point SCRIBE_WHISPER_MODEL at a whisper.cpp ggml model (f16 or f32), for example one fetched with ' +
  '`npm run -s scribe -- models pull whisper-base`';

export interface WhisperEngineOptions {
  modelPath: string;
  /** Model processes, i.e. files decoded at once (each holds the model in memory). Default 1. */
  processes?: number;
  /** Of the processes, how many only decode live streams' windows (never a file). Default 0. */
  streamProcesses?: number;
  /** Compute threads per decode. Default: the cores divided among the processes. */
  threads?: number;
  /** Extra decode settings (see WhisperChildSettings.decode). */
  decode?: Record<string, number | boolean>;
  /** A model process resident above this many MB while it decodes is killed and replaced, its job retryable. */
  maxRssMb?: number;
  /** A decode's deadline: `baseMs` plus `perAudioSecondMs` for each second of audio. */
  timeout?: { baseMs: number; perAudioSecondMs: number };
}

/** One decode of a stream's rolling window (see decodeWindow). */
export interface WhisperWindowInput {
  /** 16 kHz mono samples. */
  pcm: Int16Array;
  /** A language the engine supports (supports() said so), or `auto`. */
  language: string;
  /** Text the window continues (what was settled before it): the decoder's initial prompt. */
  prompt?: string;
}

export interface WhisperEngine extends TranscriptionEngine {
  readonly kind: 'whisper';
  /**
   * Decodes a short stream window held in memory, ahead of the queued file jobs (a live stream waits for it). Words
   * are in seconds from the window's first sample; `language` is the one told or detected (BCP 47).
   */
  decodeWindow(input: WhisperWindowInput): Promise<EngineTranscript>;
  readonly model: WhisperModelInfo;
  /** The model processes, for tests (a crash is simulated by killing one) and diagnostics. */
  readonly pool: WhisperProcessPool;
}

/** BCP 47 spelling of Whisper's codes, for what /v3/models lists and what a result says. */
const BCP47: Record<string, string> = { jw: 'jv' };

/**
 * Checks the model file and sets up the processes (started with the first job). Throws EngineError
 * `engine_unavailable` when the file is missing or not a usable model (the message names no file; `cause` does).
 */
export function createWhisperEngine(options: WhisperEngineOptions): WhisperEngine {
  let model: WhisperModelInfo;
  try {
    model = inspectWhisperModel(options.modelPath);
  } catch (error) {
    if (!(error instanceof WhisperModelError)) throw error;
    throw new EngineError(
      'engine_unavailable',
      `the whisper model file is not usable: ${error.message}; ${WHISPER_SETUP_HINT}`,
      {
        cause: new Error(`${options.modelPath}: ${error.message}`),
      },
    );
  }
  const processes = Math.max(1, options.processes ?? 1);
  const threads = Math.max(1, options.threads ?? Math.floor(availableParallelism() / processes));
  const pool = new WhisperProcessPool(
    processes,
    { modelPath: options.modelPath, threads, ...(options.decode ? { decode: options.decode } : {}) },
    {
      maxRssBytes: options.maxRssMb ? options.maxRssMb * 2 ** 20 : undefined,
      reservedForUrgent: Math.min(options.streamProcesses ?? 0, processes - 1),
    },
  );
  const timeout = options.timeout ?? { baseMs: 120_000, perAudioSecondMs: 10_000 };
  const known = new Set(model.languages);
  const whisperCode = (language: string): string | undefined => {
    if (language.trim().toLowerCase() === DETECT_LANGUAGE) return model.multilingual ? DETECT_LANGUAGE : 'en';
    const primary = primaryLanguage(language);
    const code = primary && whisperLanguageCode(primary);
    return code && known.has(code) ? code : undefined;
  };
  const supports = (language: string) => whisperCode(language) !== undefined;

  return {
    id: `whisper-${model.size}${model.multilingual ? '' : '.en'}`,
    kind: 'whisper',
    languages: model.languages.map((code) => BCP47[code] ?? code),
    detectsLanguage: model.multilingual,
    model,
    pool,
    supports,
    async transcribe(input: TranscribeInput, transcribeOptions: TranscribeOptions = {}): Promise<EngineTranscript> {
      const language = whisperCode(input.language);
      if (!language) {
        throw new EngineError(
          'unsupported_language',
          `this whisper model does not transcribe language "${input.language}"`,
        );
      }
      const bytes = await stat(input.pcmPath).then(
        (s) => s.size,
        () => 0,
      );
      const seconds = bytes / 2 / SAMPLE_RATE;
      const terms = input.terms?.map((term) => term.trim()).filter(Boolean) ?? [];
      const result = await pool.run(
        { pcmPath: input.pcmPath, language, ...(terms.length > 0 ? { prompt: terms.join(', ') } : {}) },
        {
          timeoutMs: Math.round(timeout.baseMs + seconds * timeout.perAudioSecondMs),
          ...(transcribeOptions.signal ? { signal: transcribeOptions.signal } : {}),
          ...(transcribeOptions.onProgress ? { onProgress: transcribeOptions.onProgress } : {}),
        },
      );
      transcribeOptions.onProgress?.(1);
      const duration = roundTime(result.samples / SAMPLE_RATE);
      return {
        text: result.text,
        duration,
        words: wordsOf(result.text, result.segments, duration),
        language: BCP47[result.language] ?? result.language,
      };
    },
    async decodeWindow(input: WhisperWindowInput): Promise<EngineTranscript> {
      const language = whisperCode(input.language);
      if (!language) {
        throw new EngineError(
          'unsupported_language',
          `this whisper model does not transcribe language "${input.language}"`,
        );
      }
      const seconds = input.pcm.length / SAMPLE_RATE;
      const prompt = input.prompt?.trim();
      const result = await pool.run(
        { pcm: input.pcm, language, ...(prompt ? { prompt } : {}) },
        {
          // The file's deadline for as much audio: it only catches a stuck process (which is then killed). A session
          // whose decodes are merely slow falls behind and is ended by the connection's bound on unprocessed audio.
          timeoutMs: Math.round(timeout.baseMs + seconds * timeout.perAudioSecondMs),
          urgent: true,
        },
      );
      const duration = roundTime(result.samples / SAMPLE_RATE);
      return {
        text: result.text,
        duration,
        words: wordsOf(result.text, result.segments, duration),
        language: BCP47[result.language] ?? result.language,
      };
    },
    close: () => pool.close(),
  };
}

/** Whether an engine is the whisper engine with its model loaded (an unusable model file gives an unavailable one). */
export function isWhisperEngine(engine: TranscriptionEngine): engine is WhisperEngine {
  return engine.kind === 'whisper' && !engine.unavailable && 'decodeWindow' in engine;
}
