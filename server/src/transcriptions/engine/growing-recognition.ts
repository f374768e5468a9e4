// Recognition that starts while the PCM file is still being written (ffmpeg decoding the medium). The segmenter cuts
// where the audio is quiet relative to the whole file's levels (its threshold comes from the quietest and loudest
// frames of all of it), so a plan made from the part written so far is only a guess at the final plan. Segments of
// that guess are decoded as soon as they are settled ("early"), and each is kept only where the final plan — made
// once the file is complete, from exactly the frame energies a reading of the complete file gives — has the very same
// segment; every other segment of the final plan is decoded then. A segment's words depend on its samples (each
// utterance is decoded on its own, with its own normalisation) and, now and then, on the utterance the decoder
// decoded just before it (the acoustic model's top-N history: pocketsphinx/binding.ts); segments are decoded in the
// same order either way, so the words are those of a recognition after the decode unless a thrown-away early segment
// came between two kept ones. A wrong guess otherwise costs only the time of the early segments thrown away, and only
// while the decode runs.
//
// Why not plan from the audio so far and keep that plan: the words of a file would then depend on how fast ffmpeg
// happened to run. Why not wait for the decode: a medium whose decode is slow (long, or heavily compressed) would
// keep a worker idle for that time.
import type { FileHandle } from 'node:fs/promises';
import type { EngineWord } from './engine.ts';
import { waitForGrowth } from './growing-pcm.ts';
import { readPcmRange, SAMPLE_RATE } from './pcm-file.ts';
import { EnergyMeter, settledSegments, type Segment, type SegmenterOptions } from './segmenter.ts';

/** Samples read at a time (as in measureEnergy). */
const CHUNK_SAMPLES = 30 * SAMPLE_RATE;
/** A new guess at the plan needs this much more audio, and at least a quarter more than the last guess had. */
const REPLAN_SAMPLES = 2 * SAMPLE_RATE;

export interface FollowOptions {
  pcmPath: string;
  /** The writing cell of the file (pcm-writing.ts). */
  writing: SharedArrayBuffer;
  segmenter?: SegmenterOptions;
  /** Decode settled segments before the file is complete (off when the job brings its own segments). */
  early: boolean;
  /** The length the file is expected to reach (the probe's), for progress while it grows; none without it. */
  expectedSamples?: number;
  /** Decodes one segment of the file into words (times from the start of the file). */
  decode(segment: Segment): Promise<EngineWord[]>;
  progress(fraction: number): void;
  /** Runs between units of work; throws to stop (a cancelled job). */
  between(): void;
}

export interface Followed {
  /** Whole samples in the complete file. */
  samples: number;
  /** The frame energies of the complete file, as measureEnergy gives them. */
  energies: Float32Array;
  /** Words of the segments decoded early, by segmentKey. */
  early: Map<string, EngineWord[]>;
}

export function segmentKey(segment: Segment): string {
  return `${segment.start}:${segment.end}`;
}

/** Reads the file as it grows until it is complete, measuring its energy and decoding settled segments early. */
export async function followGrowingPcm(file: FileHandle, options: FollowOptions): Promise<Followed> {
  const meter = new EnergyMeter();
  const early = new Map<string, EngineWord[]>();
  let read = 0;
  let plannedAt = 0;
  /** Early segments are decoded in order: the next one starts at or after the end of the last. */
  let decodedTo = 0;
  for (;;) {
    const growth = await waitForGrowth(file, options.pcmPath, options.writing, read, options.between);
    while (read < growth.samples) {
      const chunk = await readPcmRange(file, read, Math.min(growth.samples, read + CHUNK_SAMPLES));
      if (chunk.length === 0) break;
      meter.push(chunk);
      read += chunk.length;
      options.between();
    }
    if (growth.complete) return { samples: read, energies: meter.finish(), early };
    if (!options.early || read - plannedAt < Math.max(REPLAN_SAMPLES, plannedAt / 4)) continue;
    plannedAt = read;
    // One segment per look at the file, so that the energy keeps up with what ffmpeg writes meanwhile.
    const next = settledSegments(meter.soFar(), read, options.segmenter).find((s) => s.start >= decodedTo);
    if (!next) continue;
    early.set(segmentKey(next), await options.decode(next));
    decodedTo = next.end;
    if (options.expectedSamples) options.progress(Math.min(0.99, next.end / options.expectedSamples));
    plannedAt = 0; // look for the next settled segment at once
  }
}
