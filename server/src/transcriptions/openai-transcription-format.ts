// A completed task's result in the form an OpenAI speech-to-text call asks for (`response_format`): `json` is
// `{text}`, `verbose_json` adds the language, the duration and, per `timestamp_granularities[]`, the words and the
// segments; `text`, `srt` and `vtt` are the same texts as the v3 result formats. Segments are the subtitle cues, so a
// verbose_json answer and the srt/vtt of the same task agree. Words carry only OpenAI's fields (word, start, end): the
// contract's `Word.confidence` belongs to v3's `output.confidence`, which this endpoint has no way to ask for.
import type {
  OpenAiAudioTranscription,
  OpenAiAudioTranscriptionRequest,
  OpenAiAudioTranscriptionVerbose,
  TranscriptionResult,
} from '../../../generated/client/types.gen.ts';
import { primaryLanguage } from './engine/engine.ts';
import { cuesOf, toSrt, toText, toVtt } from './subtitles.ts';

export type ResponseFormat = NonNullable<OpenAiAudioTranscriptionRequest['response_format']>;
export type Granularity = NonNullable<OpenAiAudioTranscriptionRequest['timestamp_granularities[]']>[number];

export type OpenAiAnswer =
  | { body: OpenAiAudioTranscription | OpenAiAudioTranscriptionVerbose; contentType?: undefined }
  | { body: string; contentType: string };

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
      ? { segments: cuesOf(result).map((cue, id) => ({ id, start: cue.start, end: cue.end, text: cue.text })) }
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
