// A transcription engine that forwards to an OpenAI-compatible upstream (OpenAI, a faster-whisper or vLLM server, a
// second Scribe): `POST {baseUrl}/audio/transcriptions`, multipart with the PCM wrapped as a 16 kHz mono WAV (a
// 44-byte header in front of the file, streamed from disk — the recording is not read into memory), `model`,
// `language` (the primary subtag: "en-US" → "en"), `response_format=verbose_json`, `timestamp_granularities[]=word`
// and, when there are terms, `prompt` = the terms joined by ", " (Whisper's way of biasing its vocabulary).
//
// Decisions:
//  - `confidence` is taken from a word's `probability` (what faster-whisper based servers return) or `confidence` when
//    the upstream sends one in [0, 1], and is otherwise left out: OpenAI's own API has no per-word confidence, and a
//    made-up 1 would look like certainty to everything downstream.
//  - `duration` is the length of the audio we sent (from the file size), not the upstream's figure: the two engines
//    then report the same duration for the same file and billing does not depend on an upstream's rounding.
//  - `text` is the upstream's text (punctuated), `words` its words with times rounded to 0.01; an upstream that ignores
//    timestamp_granularities gives `words: []`, not invented timings.
//  - `languages` lists the primary subtags the upstream serves; left out, it is ["*"]: any well-formed tag is accepted
//    and the upstream decides (Whisper knows ~100 languages).
//  - Progress is reported once, 1, when the answer has arrived (an HTTP upstream says nothing in between).
//  - Failures are EngineErrors: `upstream_error` (non-2xx, with `status` and the upstream's message),
//    `upstream_unreachable` (network error or `timeoutMs` passed), `upstream_invalid_response` (2xx but not
//    verbose_json), `cancelled` (the caller's signal).
import { openAsBlob } from 'node:fs';
import {
  EngineError,
  primaryLanguage,
  roundTime,
  type EngineTranscript,
  type EngineWord,
  type TranscribeInput,
  type TranscribeOptions,
  type TranscriptionEngine,
} from './engine.ts';
import { unreachableUpstream } from './upstream-failure.ts';
import { BYTES_PER_SAMPLE, pcmSampleCount, SAMPLE_RATE } from './pcm-file.ts';
import { wavHeader } from './wav.ts';

export interface OpenAiCompatibleEngineOptions {
  /** API root, e.g. "https://api.openai.com/v1" or "http://127.0.0.1:8000/v1". */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <apiKey>`; empty → no Authorization header. */
  apiKey: string;
  /** The upstream's model name, e.g. "whisper-1". */
  model: string;
  /** Primary language subtags the upstream serves. Default ["*"] (any). */
  languages?: string[];
  /** Gives up on an upstream that has not answered after this long. Default 10 minutes. */
  timeoutMs?: number;
}

export function createOpenAiCompatibleEngine(options: OpenAiCompatibleEngineOptions): TranscriptionEngine {
  const endpoint = `${options.baseUrl.replace(/\/+$/, '')}/audio/transcriptions`;
  const languages = options.languages?.map((tag) => primaryLanguage(tag) ?? tag.toLowerCase()) ?? ['*'];
  const timeoutMs = options.timeoutMs ?? 600_000;
  let closed = false;

  const supports = (language: string) => {
    const primary = primaryLanguage(language);
    return primary !== undefined && (languages.includes('*') || languages.includes(primary));
  };

  return {
    id: `openai-compatible:${options.model}`,
    languages,
    kind: 'openai-compatible',
    supports,
    async transcribe(input: TranscribeInput, transcribeOptions: TranscribeOptions = {}): Promise<EngineTranscript> {
      const { signal, onProgress } = transcribeOptions;
      if (closed) throw new EngineError('engine_closed', 'the OpenAI-compatible engine has been closed');
      if (!supports(input.language)) {
        throw new EngineError(
          'unsupported_language',
          `the upstream model ${options.model} is not configured for language "${input.language}"`,
        );
      }
      if (signal?.aborted) throw cancelled(signal);
      const samples = await pcmSampleCount(input.pcmPath);
      const duration = roundTime(samples / SAMPLE_RATE);
      if (samples === 0) {
        onProgress?.(1);
        return { text: '', duration, words: [] };
      }

      const dataBytes = samples * BYTES_PER_SAMPLE;
      const pcm = (await openAsBlob(input.pcmPath)).slice(0, dataBytes);
      const form = new FormData();
      form.append('file', new Blob([wavHeader(dataBytes), pcm], { type: 'audio/wav' }), 'audio.wav');
      form.append('model', options.model);
      form.append('language', primaryLanguage(input.language)!);
      form.append('response_format', 'verbose_json');
      form.append('timestamp_granularities[]', 'word');
      if (input.terms && input.terms.length > 0) form.append('prompt', input.terms.join(', '));

      const timeout = AbortSignal.timeout(timeoutMs);
      const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
      let body: unknown;
      try {
        const response = await fetch(endpoint, {
          method: 'POST',
          body: form,
          headers: options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {},
          signal: combined,
        });
        const raw = await response.text();
        if (!response.ok) {
          throw new EngineError(
            'upstream_error',
            `the upstream (${endpoint}) answered ${response.status}: ${upstreamMessage(raw) || response.statusText}`,
            { status: response.status },
          );
        }
        try {
          body = JSON.parse(raw);
        } catch (error) {
          throw invalidResponse(`its body is not JSON (${raw.slice(0, 80)})`, error);
        }
      } catch (error) {
        if (error instanceof EngineError) throw error;
        if (signal?.aborted) throw cancelled(signal);
        throw unreachableUpstream(error, endpoint, timeout, timeoutMs);
      }

      const transcript = { ...parseVerboseJson(body), duration };
      onProgress?.(1);
      return transcript;
    },
    async close() {
      closed = true;
    },
  };
}

/** text + words of a verbose_json answer; throws `upstream_invalid_response` on anything else. */
function parseVerboseJson(body: unknown): Omit<EngineTranscript, 'duration'> {
  if (typeof body !== 'object' || body === null || typeof (body as { text?: unknown }).text !== 'string') {
    throw invalidResponse('it has no "text"');
  }
  const { text, words } = body as { text: string; words?: unknown };
  if (words !== undefined && !Array.isArray(words)) throw invalidResponse('"words" is not an array');
  const mapped: EngineWord[] = [];
  for (const item of words ?? []) {
    const w = item as { word?: unknown; start?: unknown; end?: unknown; probability?: unknown; confidence?: unknown };
    if (typeof w.word !== 'string' || !isTime(w.start) || !isTime(w.end)) {
      throw invalidResponse('a word lacks "word", "start" or "end"');
    }
    const word = w.word.trim();
    if (word.length === 0) continue;
    const entry: EngineWord = { word, start: roundTime(w.start), end: roundTime(Math.max(w.start, w.end)) };
    const confidence = [w.probability, w.confidence].find((c) => typeof c === 'number' && c >= 0 && c <= 1);
    if (confidence !== undefined) entry.confidence = Math.round((confidence as number) * 1000) / 1000;
    mapped.push(entry);
  }
  return { text: text.trim(), words: mapped };
}

function isTime(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}

/** The message of an OpenAI-style error body ({"error": {"message": …}}), or the start of the body. */
function upstreamMessage(raw: string): string {
  try {
    const parsed = JSON.parse(raw) as { error?: { message?: unknown } | string; message?: unknown; detail?: unknown };
    const candidates = [
      typeof parsed.error === 'object' ? parsed.error?.message : parsed.error,
      parsed.message,
      parsed.detail,
    ];
    const found = candidates.find((c) => typeof c === 'string' && c.length > 0);
    if (found) return found as string;
  } catch {
    // not JSON: fall through
  }
  return raw.trim().slice(0, 200);
}

function invalidResponse(why: string, cause?: unknown): EngineError {
  return new EngineError('upstream_invalid_response', `the upstream's answer is not verbose_json: ${why}`, { cause });
}

function cancelled(signal: AbortSignal): EngineError {
  return new EngineError('cancelled', 'the transcription was cancelled', { cause: signal.reason });
}
