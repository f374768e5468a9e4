// The embedded default transcription engine: PocketSphinx (Debian libpocketsphinx3 + pocketsphinx-en-us) on a pool of
// worker threads, one decoder each (see worker.ts). English only: `supports` accepts any tag whose primary subtag is
// "en" ("en", "en-US", "en-GB", "EN_au") — the model is US English, and for another English variant it is still the
// best this engine has, so rejecting those would only push callers to lie about the language. Other languages are not
// supported (there is no model for them).
//
// Terms are honoured as a per-request language-model bias for the words that are in the dictionary (terms.ts); the
// result's words carry the word's lattice posterior as `confidence`.
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import {
  EngineError,
  primaryLanguage,
  roundTime,
  type EngineTranscript,
  type TranscribeInput,
  type TranscribeOptions,
  type TranscriptionEngine,
} from '../engine.ts';
import { SAMPLE_RATE } from '../pcm-file.ts';
import type { SegmenterOptions } from '../segmenter.ts';
import { WorkerPool } from '../worker-pool.ts';
import { loadPocketSphinx, setPocketSphinxLog, type ModelPaths } from './binding.ts';
import type { PocketSphinxJob, PocketSphinxResult, PocketSphinxWorkerData } from './worker.ts';

/** Where Debian's pocketsphinx-en-us installs the US English model. */
export const DEFAULT_MODEL_DIR = '/usr/share/pocketsphinx/model/en-us';

export interface PocketSphinxEngineOptions {
  /** Worker threads, i.e. files transcribed at once. Default: os.availableParallelism(). */
  workers?: number;
  /** Directory with `en-us/` (acoustic model), `en-us.lm.bin` and `cmudict-en-us.dict`. Default DEFAULT_MODEL_DIR. */
  modelDir?: string;
  /** PocketSphinx's own log, for debugging (default: discarded). Process-wide: the last engine created sets it. */
  logFile?: string;
  segmenter?: SegmenterOptions;
  /** See WorkerPoolOptions.cancelGraceMs. */
  cancelGraceMs?: number;
}

export interface PocketSphinxEngine extends TranscriptionEngine {
  readonly kind: 'pocketsphinx';
  /** The worker pool, for jobs that want the worker's full result (segments, ignored terms) and for tests. */
  readonly pool: WorkerPool<PocketSphinxJob, PocketSphinxResult>;
}

export function modelPaths(modelDir: string = DEFAULT_MODEL_DIR): ModelPaths {
  return {
    hmm: join(modelDir, 'en-us'),
    lm: join(modelDir, 'en-us.lm.bin'),
    dict: join(modelDir, 'cmudict-en-us.dict'),
  };
}

/**
 * Starts the workers (each loads the model in the background). Throws EngineError `engine_unavailable` right away when
 * the libraries or the model files are missing.
 */
export function createPocketSphinxEngine(options: PocketSphinxEngineOptions = {}): PocketSphinxEngine {
  const model = modelPaths(options.modelDir);
  const missing = Object.values(model).filter((path) => !existsSync(path));
  if (missing.length > 0) {
    throw new EngineError(
      'engine_unavailable',
      `PocketSphinx model files not found: ${missing.join(', ')} (install pocketsphinx-en-us or set modelDir)`,
    );
  }
  try {
    loadPocketSphinx();
    if (options.logFile) setPocketSphinxLog(options.logFile);
  } catch (error) {
    throw new EngineError(
      'engine_unavailable',
      `PocketSphinx libraries cannot be loaded (install libpocketsphinx3): ${(error as Error).message}`,
      { cause: error },
    );
  }

  const workerData: PocketSphinxWorkerData = { model };
  if (options.segmenter) workerData.segmenter = options.segmenter;
  const pool = new WorkerPool<PocketSphinxJob, PocketSphinxResult>({
    size: options.workers ?? availableParallelism(),
    url: new URL('./worker.ts', import.meta.url),
    workerData,
    name: 'PocketSphinx',
    ...(options.cancelGraceMs === undefined ? {} : { cancelGraceMs: options.cancelGraceMs }),
  });

  const supports = (language: string) => primaryLanguage(language) === 'en';

  return {
    id: 'pocketsphinx-en-us',
    languages: ['en'],
    kind: 'pocketsphinx',
    pool,
    supports,
    async transcribe(input: TranscribeInput, transcribeOptions: TranscribeOptions = {}): Promise<EngineTranscript> {
      if (!supports(input.language)) {
        throw new EngineError(
          'unsupported_language',
          `PocketSphinx transcribes English only; language "${input.language}" is not supported`,
        );
      }
      const job: PocketSphinxJob = { pcmPath: input.pcmPath };
      if (input.terms && input.terms.length > 0) job.terms = input.terms;
      const result = await pool.run(job, transcribeOptions);
      return {
        text: result.words.map((w) => w.word).join(' '),
        duration: roundTime(result.samples / SAMPLE_RATE),
        words: result.words,
      };
    },
    close: () => pool.close(),
  };
}
