// The embedded default transcription engine: PocketSphinx (Debian libpocketsphinx3 + pocketsphinx-en-us) on a pool of
// worker threads, one decoder each (see worker.ts). English only: `supports` accepts any tag whose primary subtag is
// "en" ("en", "en-US", "en-GB", "EN_au") — the model is US English, and for another English variant it is still the
// best this engine has, so rejecting those would only push callers to lie about the language. Other languages are not
// supported (there is no model for them).
//
// A file still being written (a decode in progress) is read as it grows, with the same words as the complete file
// (growing-recognition.ts): the job's start no longer waits for ffmpeg to finish.
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
import { shareWriting } from '../pcm-writing.ts';
import type { SegmenterOptions } from '../segmenter.ts';
import { WorkerPool } from '../worker-pool.ts';
import { DEFAULT_MODEL_DIR } from '../../../config.ts';
import { loadPocketSphinx, setPocketSphinxLog, type ModelPaths } from './binding.ts';
import type { PocketSphinxJob, PocketSphinxResult, PocketSphinxWorkerData } from './worker.ts';

/** The Debian packages of the engine, and the command that installs them (said wherever the engine is missing). */
export const POCKETSPHINX_PACKAGES = ['libpocketsphinx3', 'pocketsphinx-en-us'];
export const POCKETSPHINX_INSTALL_HINT =
  `install it with \`apt-get install ${POCKETSPHINX_PACKAGES.join(' ')}\` (as root; npm install does it when run ` +
  'as root) or point SCRIBE_POCKETSPHINX_MODEL_DIR / SCRIBE_POCKETSPHINX_LIBRARY at its files';

export interface PocketSphinxEngineOptions {
  /** Worker threads, i.e. files transcribed at once. Default: os.availableParallelism(). */
  workers?: number;
  /** Directory with `en-us/` (acoustic model), `en-us.lm.bin` and `cmudict-en-us.dict`. Default DEFAULT_MODEL_DIR. */
  modelDir?: string;
  /** The libpocketsphinx.so.3 file; default the system's (see ModelPaths.library). */
  library?: string;
  /** PocketSphinx's own log, for debugging (default: discarded). Process-wide: the last engine created sets it. */
  logFile?: string;
  segmenter?: SegmenterOptions;
  /** See WorkerPoolOptions.cancelGraceMs. */
  cancelGraceMs?: number;
  /**
   * Nice value of the worker threads (1–19, Linux; 0 or absent: the server's own priority). Batch recognition then
   * runs on the CPU that the server's thread, live streams and chat leave, and takes all of it when they are idle.
   */
  nice?: number;
}

export interface PocketSphinxEngine extends TranscriptionEngine {
  readonly kind: 'pocketsphinx';
  /** The worker pool, for jobs that want the worker's full result (segments, ignored terms) and for tests. */
  readonly pool: WorkerPool<PocketSphinxJob, PocketSphinxResult>;
}

export function modelPaths(modelDir: string = DEFAULT_MODEL_DIR, library?: string): ModelPaths {
  return {
    hmm: join(modelDir, 'en-us'),
    lm: join(modelDir, 'en-us.lm.bin'),
    dict: join(modelDir, 'cmudict-en-us.dict'),
    ...(library ? { library } : {}),
  };
}

/** Why PocketSphinx cannot run here: `reason` names no file (it is shown to API clients), `detail` does (for logs). */
export interface EngineProblem {
  reason: string;
  detail: string;
}

/**
 * Checks that the model files exist and the libraries load (on this thread, which also silences their log when it is
 * the main thread); undefined when the engine can run.
 */
export function pocketSphinxProblem(model: ModelPaths): EngineProblem | undefined {
  const missing = [model.hmm, model.lm, model.dict].filter((path) => !existsSync(path));
  if (missing.length > 0) {
    return {
      reason: `the PocketSphinx speech model is not installed; ${POCKETSPHINX_INSTALL_HINT}`,
      detail: `PocketSphinx model files not found: ${missing.join(', ')}`,
    };
  }
  try {
    loadPocketSphinx(model.library);
  } catch (error) {
    return {
      reason: `the PocketSphinx library is not installed; ${POCKETSPHINX_INSTALL_HINT}`,
      detail: `PocketSphinx libraries cannot be loaded: ${(error as Error).message}`,
    };
  }
  return undefined;
}

/**
 * Sets up the worker pool (its workers start with the first job, each loading the model). Throws EngineError `engine_unavailable` right away when
 * the libraries or the model files are missing (its message is the problem's `reason`; `cause` has the detail).
 */
export function createPocketSphinxEngine(options: PocketSphinxEngineOptions = {}): PocketSphinxEngine {
  const model = modelPaths(options.modelDir, options.library);
  const problem = pocketSphinxProblem(model);
  if (problem) throw new EngineError('engine_unavailable', problem.reason, { cause: new Error(problem.detail) });
  if (options.logFile) setPocketSphinxLog(options.logFile);

  const workerData: PocketSphinxWorkerData = { model };
  if (options.segmenter) workerData.segmenter = options.segmenter;
  if (options.nice) workerData.nice = options.nice;
  const pool = new WorkerPool<PocketSphinxJob, PocketSphinxResult>({
    size: options.workers ?? availableParallelism(),
    url: new URL('./worker.ts', import.meta.url),
    workerData,
    name: 'PocketSphinx',
    // Each worker loads the model (~1 s of CPU, ~120 MB): only once there is something to recognise.
    startOnFirstJob: true,
    ...(options.cancelGraceMs === undefined ? {} : { cancelGraceMs: options.cancelGraceMs }),
  });

  const supports = (language: string) => primaryLanguage(language) === 'en';

  return {
    id: 'pocketsphinx-en-us',
    languages: ['en'],
    kind: 'pocketsphinx',
    readsGrowingPcm: true,
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
      if (input.pcmComplete) {
        job.writing = shareWriting(input.pcmComplete);
        if (input.expectedSeconds) job.expectedSamples = Math.round(input.expectedSeconds * SAMPLE_RATE);
      }
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
