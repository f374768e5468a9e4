// A completed task's result in the form an OpenAI speech-to-text call asks for (`response_format`): `json` is
// `{text}`, `verbose_json` adds the language, the duration and, per `timestamp_granularities[]`, the words and the
// segments; `text`, `srt` and `vtt` are the same texts as the v3 result formats. Segments are the subtitle cues, so a
// verbose_json answer and the srt/vtt of the same task agree. Words carry only OpenAI's fields (word, start, end): the
// contract's `Word.confidence` belongs to v3's `output.confidence`, which this endpoint has no way to ask for.
import { deflateSync } from 'node:zlib';
import type {
  OpenAiAudioTranscription,
  OpenAiAudioTranscriptionRequest,
  OpenAiAudioTranscriptionVerbose,
  OpenAiTranscriptionSegment,
  TranscriptionResult,
} from '../../../generated/client/types.gen.ts';
import { primaryLanguage } from './engine/engine.ts';
import { cuesOf, toSrt, toText, toVtt, type Cue } from './subtitles.ts';

export type ResponseFormat = NonNullable<OpenAiAudioTranscriptionRequest['response_format']>;
export type Granularity = NonNullable<OpenAiAudioTranscriptionRequest['timestamp_granularities[]']>[number];

export type OpenAiAnswer =
  | { body: OpenAiAudioTranscription | OpenAiAudioTranscriptionVerbose; contentType?: undefined }
  | { body: string; contentType: string };

/** Whisper's measure of repetition: the text's UTF-8 bytes over their zlib-compressed bytes (0 for no text). */
function compressionRatioOf(text: string): number {
  const bytes = Buffer.from(text, 'utf8');
  return bytes.length === 0 ? 0 : Number((bytes.length / deflateSync(bytes).length).toFixed(4));
}

/**
 * A segment with every field OpenAI's has, each with what this engine knows (the contract's descriptions say the
 * same): no Whisper tokens, deterministic decoding (temperature 0), the mean log of the segment's word confidences
 * when the task has them (0 otherwise), and no speech probability of 0, since a segment exists only where words were
 * recognised.
 */
function segmentOf(cue: Cue, id: number, result: TranscriptionResult): OpenAiTranscriptionSegment {
  const confidences = (result.words ?? [])
    .filter((w) => w.start >= cue.start && w.end <= cue.end && typeof w.confidence === 'number')
    .map((w) => Math.log(Math.max(w.confidence!, 1e-6)));
  const avgLogprob = confidences.length ? confidences.reduce((a, b) => a + b, 0) / confidences.length : 0;
  return {
    id,
    seek: Math.round(cue.start * 100),
    start: cue.start,
    end: cue.end,
    text: cue.text,
    tokens: [],
    temperature: 0,
    avg_logprob: Number(Math.min(0, avgLogprob).toFixed(4)),
    compression_ratio: compressionRatioOf(cue.text),
    no_speech_prob: 0,
  };
}

export function toVerboseJson(
  result: TranscriptionResult,
  granularities: readonly Granularity[],
): OpenAiAudioTranscriptionVerbose {
  return {
    task: 'transcribe',
    // The contract's extension: an ISO 639 code where OpenAI gives an English name; the task may say "en-US".
    language: primaryLanguage(result.language) ?? result.language,
    duration: result.duration,
    text: result.text,
    ...(granularities.includes('word')
      ? { words: (result.words ?? []).map(({ word, start, end }) => ({ word, start, end })) }
      : {}),
    ...(granularities.includes('segment')
      ? { segments: cuesOf(result).map((cue, id) => segmentOf(cue, id, result)) }
      : {}),
  };
}

export function openAiAnswer(
  result: TranscriptionResult,
  format: ResponseFormat,
  granularities: readonly Granularity[],
): OpenAiAnswer {
  switch (format) {
    case 'text':
      return { body: toText(result), contentType: 'text/plain; charset=utf-8' };
    case 'srt':
      return { body: toSrt(result), contentType: 'application/x-subrip; charset=utf-8' };
    case 'vtt':
      return { body: toVtt(result), contentType: 'text/vtt; charset=utf-8' };
    case 'verbose_json':
      return { body: toVerboseJson(result, granularities) };
    default:
      return { body: { text: result.text } };
  }
}
