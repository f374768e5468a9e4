// Worker thread entry of the PocketSphinx engine: ONE decoder per thread, created once when the thread starts (loading
// the model takes ~0.5 s and ~100 MB), then one job at a time: read the PCM file in chunks to measure its energy, plan
// segments at silences (unless the job brings its own), decode each segment as its own utterance (read from the file
// segment by segment — the whole recording is never in memory), shift word times by the segment's start, report the
// share of the audio done after each segment, and stop between segments when the pool cancels the job. A file that is
// still being written (a decode in progress) is read as it grows, with segments decoded early where they settle
// (growing-recognition.ts).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { workerData } from 'node:worker_threads';
import { EngineError, type EngineWord } from '../engine.ts';
import { openGrowingPcm } from '../growing-pcm.ts';
import { followGrowingPcm, segmentKey } from '../growing-recognition.ts';
import { openPcm, pcmSampleCount, readPcmRange, SAMPLE_RATE } from '../pcm-file.ts';
import { measureEnergy, planSegments, type Segment, type SegmenterOptions } from '../segmenter.ts';
import { lowerThisThread } from '../../../workers/thread-priority.ts';
import { serveJobs, type JobContext } from '../worker-protocol.ts';
import { Decoder, type ModelPaths } from './binding.ts';
import { planTerms } from './terms.ts';
import { toEngineWords } from './words.ts';

export interface PocketSphinxWorkerData {
  model: ModelPaths;
  segmenter?: SegmenterOptions;
  /** The thread's nice value (thread-priority.ts); 0 or absent: the server's own priority. */
  nice?: number;
}

export interface PocketSphinxJob {
  pcmPath: string;
  /**
   * Set while the file is still being written (pcm-writing.ts): the job reads it as it grows and decodes settled
   * segments early (growing-recognition.ts); the words are the same as once it is complete.
   */
  writing?: SharedArrayBuffer;
  /** The length the growing file is expected to reach, for progress before it is complete. */
  expectedSamples?: number;
  /** Sample ranges to decode as utterances; planned from the audio's energy when absent. */
  segments?: Segment[];
  terms?: string[];
}

export interface PocketSphinxResult {
  words: EngineWord[];
  /** Whole samples in the file. */
  samples: number;
  /** The segments that were decoded. */
  segments: Segment[];
  /** Words of `terms` that were boosted, and those that could not be (not in the dictionary). */
  boostedTerms: string[];
  ignoredTerms: string[];
}

const data = workerData as PocketSphinxWorkerData;
// Before the model loads: loading is CPU work too.
lowerThisThread(data.nice ?? 0);

serveJobs<PocketSphinxJob, PocketSphinxResult>(() => {
  const decoder = Decoder.create(data.model);
  return { run: (job, context) => transcribe(decoder, job, context), dispose: () => decoder.free() };
});

async function transcribe(decoder: Decoder, job: PocketSphinxJob, context: JobContext): Promise<PocketSphinxResult> {
  // The terms first: an early segment (decoded while the file grows) must be decoded as the later ones are.
  const terms = planTerms(job.terms ?? [], (word) => decoder.lookupWord(word) !== undefined);
  await useTerms(decoder, terms.words.length > 0 ? terms : null);
  const between = () => context.checkCancelled();
  const file = job.writing ? await openGrowingPcm(job.pcmPath, job.writing, between) : await openPcm(job.pcmPath);
  try {
    async function decodeSegment(segment: Segment): Promise<EngineWord[]> {
      // Reading the segment awaits I/O, which lets a pending cancel message in before the next (blocking) decode.
      const pcm = await readPcmRange(file, segment.start, segment.end);
      context.checkCancelled();
      return toEngineWords(decoder.decode(pcm).segments, segment.start / SAMPLE_RATE);
    }
    let samples: number;
    let energies: () => Promise<Float32Array>;
    let early = new Map<string, EngineWord[]>();
    if (job.writing) {
      const followed = await followGrowingPcm(file, {
        pcmPath: job.pcmPath,
        writing: job.writing,
        ...(data.segmenter ? { segmenter: data.segmenter } : {}),
        early: !job.segments,
        ...(job.expectedSamples ? { expectedSamples: job.expectedSamples } : {}),
        decode: decodeSegment,
        progress: (fraction) => context.progress(fraction),
        between,
      });
      samples = followed.samples;
      early = followed.early;
      energies = () => Promise.resolve(followed.energies);
    } else {
      samples = await pcmSampleCount(job.pcmPath);
      energies = () => measureEnergy(file, samples, { between });
    }
    const segments =
      job.segments?.map((s) => ({ start: Math.max(0, s.start), end: Math.min(samples, s.end) })) ??
      planSegments(await energies(), samples, data.segmenter);

    const words: EngineWord[] = [];
    for (const segment of segments) {
      words.push(...(early.get(segmentKey(segment)) ?? (await decodeSegment(segment))));
      context.progress(samples === 0 ? 1 : segment.end / samples);
    }
    context.progress(1);
    return { words, samples, segments, boostedTerms: terms.words, ignoredTerms: terms.ignored };
  } finally {
    await file.close();
  }
}

/** Switches the decoder to (or back from) the terms-biased LM; the LM file is only needed while it is read. */
async function useTerms(decoder: Decoder, terms: ReturnType<typeof planTerms> | null): Promise<void> {
  if (terms === null) return decoder.setTerms(null);
  const dir = await mkdtemp(join(tmpdir(), 'scribe-terms-'));
  try {
    const arpaPath = join(dir, 'terms.arpa');
    await writeFile(arpaPath, terms.arpa);
    decoder.setTerms({ key: terms.key, arpaPath, weight: terms.weight });
  } catch (error) {
    throw new EngineError('engine_failed', `cannot use the terms: ${(error as Error).message}`, { cause: error });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
