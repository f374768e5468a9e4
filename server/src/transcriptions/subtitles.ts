// A completed task's transcript as SubRip, WebVTT or plain text (the contract's rules): cues numbered from 1, built
// from the word timings; with diarization one cue per speaker segment with the speaker's name, otherwise
// consecutive words grouped into cues of at most 7 seconds and 84 characters.
import type { TranscriptionResult } from '../../../generated/client/types.gen.ts';

const MAX_CUE_SECONDS = 7;
const MAX_CUE_CHARS = 84;

export interface Cue {
  start: number;
  end: number;
  text: string;
  speaker?: string;
}

/** The transcript's cues (also the segments of the OpenAI `verbose_json` answer, so both agree). */
export function cuesOf(result: TranscriptionResult): Cue[] {
  const names = new Map((result.speakers ?? []).map((s) => [s.id, s.name]));
  if (result.segments && result.segments.length > 0) {
    return result.segments.map((s) => ({ start: s.start, end: s.end, text: s.text, speaker: names.get(s.speaker) }));
  }
  const cues: Cue[] = [];
  let current: Cue | undefined;
  for (const word of result.words ?? []) {
    const text = current ? `${current.text} ${word.word}` : word.word;
    if (current && word.end - current.start <= MAX_CUE_SECONDS && text.length <= MAX_CUE_CHARS) {
      current.text = text;
      current.end = word.end;
      continue;
    }
    current = { start: word.start, end: word.end, text: word.word };
    cues.push(current);
  }
  if (cues.length === 0 && result.text) cues.push({ start: 0, end: result.duration, text: result.text });
  return cues;
}

function clock(seconds: number, separator: ',' | '.'): string {
  const ms = Math.round(seconds * 1000);
  const pad = (n: number, width = 2) => String(n).padStart(width, '0');
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const s = Math.floor((ms % 60_000) / 1000);
  return `${pad(h)}:${pad(m)}:${pad(s)}${separator}${pad(ms % 1000, 3)}`;
}

export function toSrt(result: TranscriptionResult): string {
  return cuesOf(result)
    .map(
      (cue, i) =>
        `${i + 1}\n${clock(cue.start, ',')} --> ${clock(cue.end, ',')}\n${cue.speaker ? `${cue.speaker}: ` : ''}${cue.text}\n`,
    )
    .join('\n');
}

export function toVtt(result: TranscriptionResult): string {
  const cues = cuesOf(result).map(
    (cue, i) =>
      `${i + 1}\n${clock(cue.start, '.')} --> ${clock(cue.end, '.')}\n${cue.speaker ? `<v ${cue.speaker}>` : ''}${cue.text}\n`,
  );
  return ['WEBVTT\n', ...cues].join('\n');
}

export function toText(result: TranscriptionResult): string {
  if (result.segments && result.segments.length > 0)
    return (
      cuesOf(result)
        .map((c) => `${c.speaker}: ${c.text}`)
        .join('\n') + '\n'
    );
  return `${result.text}\n`;
}
