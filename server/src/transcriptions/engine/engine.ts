// The contract every transcription engine implements (PocketSphinx in-process, an OpenAI-compatible upstream, …), so
// that the job runner, /v3/models and /health can treat them alike. Also the one error type engines throw
// (EngineError, with a stable `code` the job runner maps to a task failure) and the two conventions every engine
// shares: times are seconds rounded to 0.01, and a language tag is matched by its primary subtag ("en-US" → "en").
//
// Decision — no `pcm` in the result: the input is a file (`pcmPath`, 16 kHz mono s16le raw) that the caller owns and
// keeps until `transcribe` settles; engines only read it, in chunks, and never modify or delete it. The job runner
// runs diarization on that same file, so handing the samples back would only copy the whole recording across the
// worker boundary and hold it in memory for nothing (an hour is 115 MB).

/** One recognised word. Times are seconds from the start of the file, rounded to 0.01; `end` is exclusive. */
export interface EngineWord {
  word: string;
  start: number;
  end: number;
  /**
   * How sure the engine is of this word, in [0, 1] (PocketSphinx: the word's posterior probability in the lattice).
   * Absent when the engine does not say (an OpenAI-compatible upstream that returns no per-word probability): a made
   * up 1 would be a lie that downstream filters trust.
   */
  confidence?: number;
}

export interface EngineTranscript {
  /** The words joined by single spaces (PocketSphinx), or the upstream's own text (punctuated by e.g. Whisper). */
  text: string;
  /** Length of the audio that was transcribed, in seconds rounded to 0.01 (from the PCM file's size). */
  duration: number;
  /** In time order. Empty when nothing was recognised or the upstream returns no word timestamps. */
  words: EngineWord[];
  /**
   * The language of the speech as the engine saw it: the one detected when it was asked to detect (`auto`), else the
   * one it was told. Absent when the engine does not say.
   */
  language?: string;
}

export interface TranscribeInput {
  /** A 16 kHz mono signed 16-bit little-endian raw PCM file. Read-only for the engine; the caller deletes it. */
  pcmPath: string;
  /** A BCP 47 tag ("en", "en-US", "de"); check `supports` first — an unsupported one rejects. */
  language: string;
  /** Words and names likely to occur (vocabulary hints). Each engine documents what it does with them. */
  terms?: string[];
  /**
   * Set when `pcmPath` is still being written (its decode is running): resolves once the file is complete, rejects
   * if the decode fails (the caller reports that failure; the engine only stops). Given only to an engine that
   * `readsGrowingPcm`; the others are handed the complete file.
   */
  pcmComplete?: Promise<unknown>;
  /** Seconds of audio the file is expected to hold (the probe's), for progress while it is still being written. */
  expectedSeconds?: number;
}

export interface TranscribeOptions {
  /** Share of the audio processed so far, in [0, 1]: never decreases, and is called with 1 before the promise resolves. */
  onProgress?: (fraction: number) => void;
  /** Aborting rejects the promise promptly with EngineError `cancelled` (work in flight is stopped as soon as it can). */
  signal?: AbortSignal;
}

export interface TranscriptionEngine {
  /** Stable identifier for logs and /health, e.g. "pocketsphinx-en-us". */
  readonly id: string;
  /** Primary language subtags ("en"), or ["*"] when the engine accepts any language and lets its backend decide. */
  readonly languages: readonly string[];
  readonly kind: 'pocketsphinx' | 'openai-compatible' | 'whisper';
  /** Whether the engine detects the language itself when asked for `auto` (then `supports('auto')` is true). */
  readonly detectsLanguage?: boolean;
  /**
   * Starts on a PCM file that is still being written (`TranscribeInput.pcmComplete`), so recognition overlaps the
   * decode; the result is the same as on the complete file.
   */
  readonly readsGrowingPcm?: boolean;
  /**
   * Why this engine cannot run on this machine and how to fix it (shown to API clients, so it names no file); absent
   * when it can. An unavailable engine rejects every `transcribe` with `engine_unavailable`.
   */
  readonly unavailable?: string;
  /** Whether `language` (any case, region or script subtags allowed: "en-US", "EN_gb") can be transcribed. */
  supports(language: string): boolean;
  transcribe(input: TranscribeInput, options?: TranscribeOptions): Promise<EngineTranscript>;
  /** Stops workers / releases resources; pending and later `transcribe` calls reject with `engine_closed`. */
  close(): Promise<void>;
}

export type EngineErrorCode =
  /** `supports(language)` is false. */
  | 'unsupported_language'
  /** The PCM file is missing, unreadable or not usable (e.g. empty). */
  | 'invalid_audio'
  /** The caller's AbortSignal fired. */
  | 'cancelled'
  /** The engine was closed before or while the job ran. */
  | 'engine_closed'
  /** The engine cannot run on this machine (library or model files missing, worker failed to start). */
  | 'engine_unavailable'
  /** A worker thread died while running the job (it has been replaced); running the job again may succeed. */
  | 'worker_crashed'
  /** The upstream answered with an HTTP error status (see `status`). */
  | 'upstream_error'
  /** The upstream could not be reached or did not answer in time. */
  | 'upstream_unreachable'
  /** The upstream answered 2xx with a body that is not the expected verbose_json. */
  | 'upstream_invalid_response'
  /** Anything else that went wrong inside the engine. */
  | 'engine_failed';

const retryableCodes = new Set<EngineErrorCode>(['worker_crashed', 'upstream_unreachable']);

export class EngineError extends Error {
  override readonly name = 'EngineError';
  readonly code: EngineErrorCode;
  /** HTTP status of the upstream's answer, for `upstream_error`. */
  readonly status: number | undefined;
  /** Whether running the same job again can reasonably succeed (crashed worker, unreachable or overloaded upstream). */
  readonly retryable: boolean;

  constructor(code: EngineErrorCode, message: string, options: { cause?: unknown; status?: number } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.status = options.status;
    this.retryable =
      retryableCodes.has(code) ||
      (code === 'upstream_error' && options.status !== undefined && (options.status === 429 || options.status >= 500));
  }
}

/** Seconds rounded to 0.01, the precision of every time an engine returns. */
export function roundTime(seconds: number): number {
  return Math.round(seconds * 100) / 100;
}

/**
 * The primary language subtag of a BCP 47 tag, lower-cased ("en-US" → "en", "EN_gb" → "en", "yue-Hant-HK" → "yue"),
 * or undefined when the tag does not start with 2–3 letters.
 */
export function primaryLanguage(tag: string): string | undefined {
  const primary = tag.trim().split(/[-_]/)[0]?.toLowerCase() ?? '';
  return /^[a-z]{2,3}$/.test(primary) ? primary : undefined;
}
