// The embedded default embedding engine: Universal Sentence Encoder lite (Google's USE lite as packaged by
// @energetic-ai: a SentencePiece tokenizer with 8,000 pieces and a TensorFlow.js graph, weights inside the npm
// package, 512-d vectors), on worker threads (worker.ts) so the synchronous WASM inference never blocks the server.
//
// Decisions:
//  - Loaded lazily: the workers start with the first request (measured ≈ 1 s to load and warm up on this machine),
//    so a server that never embeds — and every test server — pays nothing. `start()` loads it ahead of time.
//  - Tokens are the model's own SentencePiece tokens (exact, counted by the tokenizer the model runs on), which is what
//    `usage` reports and what is billed. USE has no hard input limit; the context window of 512 tokens per text is
//    this server's limit (longer texts are refused with `context_length_exceeded`, as the contract describes).
//  - One worker by default: the model runs single-threaded in WASM, and the other core serves HTTP and the database.
import { EngineError } from '../../transcriptions/engine/engine.ts';
import { WorkerPool } from '../../transcriptions/engine/worker-pool.ts';
import type { Embedded, EmbeddingEngine, Measured } from '../engine.ts';
import type { UseLiteJob, UseLiteResult, UseLiteWorkerData } from './worker.ts';

export const USE_LITE_DIMENSIONS = 512;
export const USE_LITE_CONTEXT_WINDOW = 512;

export interface UseLiteEngineOptions {
  /** Worker threads, each with its own copy of the model (≈ 60 MB). Default 1. */
  workers?: number;
  /** Longest accepted text, in tokens. Default 512. */
  contextWindow?: number;
}

export interface UseLiteEngine extends EmbeddingEngine {
  readonly kind: 'use-lite';
  /** Starts the workers and waits until the model is loaded (otherwise the first request does it). */
  start(): Promise<void>;
}

interface Tokens {
  ids: Int32Array;
  lengths: number[];
}

export function createUseLiteEngine(options: UseLiteEngineOptions = {}): UseLiteEngine {
  const contextWindow = options.contextWindow ?? USE_LITE_CONTEXT_WINDOW;
  const workerData: UseLiteWorkerData = { contextWindow };
  let pool: WorkerPool<UseLiteJob, UseLiteResult> | undefined;
  let failed = false;
  let closed = false;

  async function run(job: UseLiteJob, signal?: AbortSignal): Promise<UseLiteResult> {
    if (closed) throw new EngineError('engine_closed', 'the embedding engine has been closed');
    pool ??= new WorkerPool<UseLiteJob, UseLiteResult>({
      size: options.workers ?? 1,
      url: new URL('./worker.ts', import.meta.url),
      workerData,
      name: 'Universal Sentence Encoder',
    });
    try {
      const result = await pool.run(job, signal ? { signal } : {});
      failed = false;
      return result;
    } catch (error) {
      // A worker that cannot load the model makes the engine unavailable until a later job starts one successfully.
      if (error instanceof EngineError && error.code === 'engine_unavailable') failed = true;
      throw error;
    }
  }

  return {
    kind: 'use-lite',
    contextWindow,
    dimensions: USE_LITE_DIMENSIONS,
    status: () => (failed || closed ? 'unavailable' : 'available'),
    async start() {
      await run({ type: 'tokenize', texts: ['warm up'] });
    },
    async measure(texts: string[]): Promise<Measured> {
      const result = await run({ type: 'tokenize', texts });
      if (result.type !== 'tokens')
        throw new EngineError('engine_failed', 'the worker answered a tokenize job wrongly');
      const state: Tokens | undefined =
        result.ids && result.lengths ? { ids: result.ids, lengths: result.lengths } : undefined;
      return { tokens: result.counts, exact: true, ...(state ? { state } : {}) };
    },
    async embed(texts: string[], measured: Measured, embedOptions = {}): Promise<Embedded> {
      const tokens = measured.state as Tokens | undefined;
      if (!tokens || tokens.lengths.length !== texts.length) {
        throw new EngineError(
          'engine_failed',
          'embed needs the measure() of the same texts, within the context window',
        );
      }
      const result = await run({ type: 'embed', ids: tokens.ids, lengths: tokens.lengths }, embedOptions.signal);
      if (result.type !== 'vectors') throw new EngineError('engine_failed', 'the worker answered an embed job wrongly');
      const vectors: Float32Array[] = [];
      for (let i = 0; i < texts.length; i++) {
        vectors.push(result.data.subarray(i * result.dimensions, (i + 1) * result.dimensions));
      }
      return { vectors, tokens: tokens.lengths.reduce((sum, n) => sum + n, 0) };
    },
    async close() {
      closed = true;
      await pool?.close();
    },
  };
}
