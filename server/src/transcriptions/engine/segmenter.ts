// Splits long audio into utterances at silences, so that an engine that decodes one utterance at a time (PocketSphinx)
// keeps its accuracy on long files: one 10-minute utterance would make its batch cepstral-mean normalisation average
// speech with minutes of silence and its search carry a huge lattice, and it could not report progress or be stopped.
//
// Energy-based, in two passes that never hold the whole recording: `measureEnergy` reads the file in chunks and keeps
// one dB value per 10 ms frame (an hour is 360 000 floats); `planSegments` then works on those values alone:
//  - threshold = noise floor (3rd percentile) + max(6 dB, 30 % of the floor-to-speech (95th percentile) range); when
//    the two are less than 10 dB apart there are no pauses to find: the audio is all silence if quieter than ≈ -55
//    dBFS (no segments), else all speech;
//  - below-threshold runs shorter than `minPause` are gaps inside speech, above-threshold runs shorter than
//    `minSpeech` are clicks; what remains are speech regions separated by pauses;
//  - a pause is cut in its middle; a long pause (≥ 2 × `padding`) is trimmed to `padding` of silence on each side and
//    the rest is not decoded at all (it still counts as processed audio for progress);
//  - neighbouring regions are merged into one segment while it stays ≤ `target` and the pause between them is shorter
//    than `longPause` (a long pause always ends a segment);
//  - only a single region of continuous speech longer than `hardMax` is cut inside speech, at its quietest 100 ms.
// Segments are sample ranges [start, end) of the file, in order and never overlapping.
import type { FileHandle } from 'node:fs/promises';
import { readPcmChunks, SAMPLE_RATE } from './pcm-file.ts';

export interface Segment {
  /** First sample. */
  start: number;
  /** One past the last sample. */
  end: number;
}

export interface SegmenterOptions {
  /** Seconds. Pauses shorter than this do not separate speech regions. Default 0.3. */
  minPause?: number;
  /** Seconds. Louder runs shorter than this are not speech. Default 0.05. */
  minSpeech?: number;
  /** Seconds of silence kept before and after speech when a pause is trimmed. Default 0.25. */
  padding?: number;
  /** Seconds. A pause at least this long always ends a segment. Default 1. */
  longPause?: number;
  /** Seconds. Regions are merged into a segment up to this length. Default 20. */
  target?: number;
  /** Seconds. Continuous speech longer than this is cut inside speech. Default 30. */
  hardMax?: number;
}

/** Frame length used for the energy measure: 10 ms, the decoder's own frame rate. */
export const FRAME_SAMPLES = SAMPLE_RATE / 100;

/** Below this spread between the quiet (3rd percentile) and loud (95th) frames, the audio has no pauses to find. */
const MIN_CONTRAST_DB = 10;
/** Audio of one level quieter than this (≈ -55 dBFS) is taken as silence. */
const MIN_SPEECH_DB = 35;

const defaults: Required<SegmenterOptions> = {
  minPause: 0.3,
  minSpeech: 0.05,
  padding: 0.25,
  longPause: 1,
  target: 20,
  hardMax: 30,
};

/** Accumulates the energy (dB of the mean square, ≥ 0) of consecutive 10 ms frames from chunks of samples. */
export class EnergyMeter {
  private values = new Float32Array(1024);
  private count = 0;
  private sum = 0;
  private inFrame = 0;

  push(samples: Int16Array): void {
    for (let i = 0; i < samples.length; i++) {
      const x = samples[i]!;
      this.sum += x * x;
      if (++this.inFrame === FRAME_SAMPLES) this.endFrame();
    }
  }

  /** The values of the whole frames so far (a copy; the meter goes on). */
  soFar(): Float32Array {
    return this.values.slice(0, this.count);
  }

  /** One value per whole frame; a final partial frame counts if it is at least half a frame. */
  finish(): Float32Array {
    if (this.inFrame >= FRAME_SAMPLES / 2) this.endFrame();
    this.inFrame = 0;
    this.sum = 0;
    return this.values.slice(0, this.count);
  }

  private endFrame(): void {
    if (this.count === this.values.length) {
      const grown = new Float32Array(this.values.length * 2);
      grown.set(this.values);
      this.values = grown;
    }
    this.values[this.count++] = 10 * Math.log10(this.sum / this.inFrame + 1);
    this.sum = 0;
    this.inFrame = 0;
  }
}

/**
 * Frame energies of an open PCM file, read in chunks of `chunkSeconds`. `between` runs after each chunk (e.g. to
 * yield to the event loop and stop when cancelled: throw from it).
 */
export async function measureEnergy(
  file: FileHandle,
  totalSamples: number,
  options: { chunkSeconds?: number; between?: () => void | Promise<void> } = {},
): Promise<Float32Array> {
  const meter = new EnergyMeter();
  for await (const chunk of readPcmChunks(file, totalSamples, Math.round((options.chunkSeconds ?? 30) * SAMPLE_RATE))) {
    meter.push(chunk);
    await options.between?.();
  }
  return meter.finish();
}

/** Plans the segments of a file of `totalSamples` samples from its frame energies (see the header for the rules). */
export function planSegments(energies: Float32Array, totalSamples: number, options: SegmenterOptions = {}): Segment[] {
  const o = { ...defaults, ...options };
  const frames = (seconds: number) => Math.max(1, Math.round(seconds * 100));
  const n = energies.length;
  if (n === 0) return [];

  const sorted = Float32Array.from(energies).sort();
  const floor = sorted[Math.floor(0.03 * (n - 1))]!;
  const loud = sorted[Math.floor(0.95 * (n - 1))]!;
  let speech: boolean[];
  if (loud - floor < MIN_CONTRAST_DB) {
    // One level throughout: all silence if it is quiet, else all speech (decoding a pause costs time, missing speech
    // loses words), cut only where it must be.
    if (loud < MIN_SPEECH_DB) return [];
    speech = new Array<boolean>(n).fill(true);
  } else {
    const threshold = floor + Math.max(6, 0.3 * (loud - floor));
    speech = Array.from(energies, (e) => e > threshold);
  }
  setShortRuns(speech, true, frames(o.minSpeech), false);
  setShortRuns(speech, false, frames(o.minPause), true, true);

  // Speech regions [start, end) in frames.
  const regions: Segment[] = [];
  for (let i = 0; i < n;) {
    if (!speech[i]) {
      i++;
      continue;
    }
    const start = i;
    while (i < n && speech[i]) i++;
    regions.push({ start, end: i });
  }
  if (regions.length === 0) return [];

  // Each region widened into the pauses around it (half a short pause, `padding` of a long one).
  const pad = frames(o.padding);
  const chunks = regions.map((region, k) => {
    const before = regions[k - 1];
    const after = regions[k + 1];
    return {
      start: before ? widen(before.end, region.start, 'right') : Math.max(0, region.start - pad),
      end: after ? widen(region.end, after.start, 'left') : Math.min(n, region.end + pad),
      pauseBefore: before ? region.start - before.end : Infinity,
    };
  });
  function widen(pauseStart: number, pauseEnd: number, side: 'left' | 'right'): number {
    if (pauseEnd - pauseStart < 2 * pad) return Math.floor((pauseStart + pauseEnd) / 2);
    return side === 'left' ? pauseStart + pad : pauseEnd - pad;
  }

  // Greedy merge up to `target`, never across a long pause.
  const merged: Segment[] = [];
  const target = frames(o.target);
  const longPause = frames(o.longPause);
  for (const chunk of chunks) {
    const current = merged[merged.length - 1];
    if (current && chunk.pauseBefore < longPause && chunk.end - current.start <= target) current.end = chunk.end;
    else merged.push({ start: chunk.start, end: chunk.end });
  }

  // Continuous speech over `hardMax`: cut at the quietest 100 ms between half of `target` and `hardMax`.
  const hardMax = frames(o.hardMax);
  const result: Segment[] = [];
  for (const segment of merged) {
    let start = segment.start;
    while (segment.end - start > hardMax) {
      const cut = quietestFrame(energies, start + Math.floor(target / 2), start + hardMax);
      result.push({ start, end: cut });
      start = cut;
    }
    result.push({ start, end: segment.end });
  }

  return result.map((s) => ({
    start: s.start * FRAME_SAMPLES,
    end: s.end >= n ? totalSamples : Math.min(totalSamples, s.end * FRAME_SAMPLES),
  }));
}

/**
 * The segments of a file that is still growing which more audio would leave as they are if the plan's threshold
 * stayed the same: all but the last (which the next audio may lengthen or merge into). The threshold comes from the
 * whole file's levels, so more audio may still move every cut: callers must check these against the final plan.
 */
export function settledSegments(
  energies: Float32Array,
  samplesSoFar: number,
  options: SegmenterOptions = {},
): Segment[] {
  return planSegments(energies, samplesSoFar, options).slice(0, -1);
}

/** Turns runs of `value` shorter than `minLength` into `replacement` (only runs between two other runs if `inner`). */
function setShortRuns(flags: boolean[], value: boolean, minLength: number, replacement: boolean, inner = false): void {
  for (let i = 0; i < flags.length;) {
    if (flags[i] !== value) {
      i++;
      continue;
    }
    const start = i;
    while (i < flags.length && flags[i] === value) i++;
    const bounded = start > 0 && i < flags.length;
    if (i - start < minLength && (!inner || bounded)) flags.fill(replacement, start, i);
  }
}

/** The frame in [from, to) where the mean energy of the 10 frames around it is lowest. */
function quietestFrame(energies: Float32Array, from: number, to: number): number {
  let best = from;
  let bestEnergy = Infinity;
  for (let i = from; i < to; i++) {
    let sum = 0;
    for (let k = Math.max(0, i - 5); k < Math.min(energies.length, i + 5); k++) sum += energies[k]!;
    if (sum < bestEnergy) {
      bestEnergy = sum;
      best = i;
    }
  }
  return best;
}
