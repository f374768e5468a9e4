// Words with times from whisper.cpp's per-token segments (`tokenTimestamps` with `maxLen: 1` gives one segment per
// token, not per word). A token that begins with white space begins a word; the word runs from its first token's t0 to
// its last token's t1. A token can hold part of a UTF-8 character (Cyrillic, CJK are split across byte-level BPE
// tokens), and the binding turns each segment's bytes into a string on its own, so such a piece arrives as U+FFFD; the
// whole text (`result`), made from all the bytes at once, is intact. White space is never part of a multi-byte
// character, so both split into the same words: times come from the segments, spellings from the whole text.
import { roundTime, type EngineWord } from '../engine.ts';

export interface WhisperSegment {
  text: string;
  /** Milliseconds. */
  t0: number;
  t1: number;
}

interface TimedWord {
  text: string;
  start: number;
  end: number;
}

function timedWords(segments: readonly WhisperSegment[]): TimedWord[] {
  const words: TimedWord[] = [];
  let current: TimedWord | undefined;
  for (const segment of segments) {
    for (const char of segment.text) {
      if (/\s/.test(char)) {
        current = undefined;
        continue;
      }
      if (!current) {
        current = { text: '', start: segment.t0, end: segment.t1 };
        words.push(current);
      }
      current.text += char;
      current.end = segment.t1;
    }
  }
  return words;
}

/**
 * The words of a transcription: times in seconds, clamped to [0, duration] (a random or confused model can place a
 * token past the end, or give t0 = t1), never before the previous word's start, and `end` ≥ `start`.
 */
export function wordsOf(text: string, segments: readonly WhisperSegment[], duration: number): EngineWord[] {
  const timed = timedWords(segments);
  const spellings = text.split(/\s+/).filter(Boolean);
  const intact = spellings.length === timed.length;
  const words: EngineWord[] = [];
  let floor = 0;
  timed.forEach((word, i) => {
    const spelling = intact ? spellings[i]! : word.text.replaceAll('\uFFFD', '');
    if (!spelling) return;
    const start = roundTime(Math.min(duration, Math.max(floor, word.start / 1000)));
    const end = roundTime(Math.min(duration, Math.max(start, word.end / 1000)));
    floor = start;
    words.push({ word: spelling, start, end });
  });
  return words;
}
