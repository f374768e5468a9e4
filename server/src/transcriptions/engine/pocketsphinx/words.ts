// Turns PocketSphinx's best path into transcript words: drops what is not a word (`<s>`, `</s>`, `<sil>`, fillers such
// as `[NOISE]` / `[SPEECH]` / `++BREATH++`, `<unk>`), strips the alternative-pronunciation suffix (`read(2)` → `read`),
// shifts frames by where the utterance starts in the file and converts them to seconds rounded to 0.01. A word's end
// is the end of its last frame (end frame + 1), so consecutive words share a boundary.
import { roundTime, type EngineWord } from '../engine.ts';
import { FRAMES_PER_SECOND, type DecodedSegment } from './binding.ts';

const notAWord = /^(<.*>|\[.*\]|\+\+.*\+\+|\+.*\+)$/;

/** The spoken word of a decoder token, or undefined for silences and fillers. */
export function cleanWord(token: string): string | undefined {
  if (notAWord.test(token)) return undefined;
  const word = token.replace(/\(\d+\)$/, '');
  return word.length > 0 ? word : undefined;
}

/** Words of one utterance that starts `offsetSeconds` into the file. */
export function toEngineWords(segments: readonly DecodedSegment[], offsetSeconds: number): EngineWord[] {
  const words: EngineWord[] = [];
  for (const segment of segments) {
    const word = cleanWord(segment.word);
    if (word === undefined) continue;
    words.push({
      word,
      start: roundTime(offsetSeconds + segment.startFrame / FRAMES_PER_SECOND),
      end: roundTime(offsetSeconds + (segment.endFrame + 1) / FRAMES_PER_SECOND),
      confidence: Math.round(segment.probability * 1000) / 1000,
    });
  }
  return words;
}
