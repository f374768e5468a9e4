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
//  - Fair between accounts: a request's texts go to the workers in small batches (tokenizing and embedding alike),
//    and the batches of different accounts take turns (fair-scheduler.ts), so one account's 2,048-text request
//    delays another account's one-word request by about one batch (≈ 0.1–0.3 s here), not by the whole request.
//    Small batches also keep the worker's WASM heap small: it grows to fit the largest model call and never shrinks
//    (measured in one process, one call after another: 16 texts / 1,311 tokens left it at 307 MB, 40 / 3,290 at
//    360 MB, 16 / 5,962 at 398 MB; the former chunks of the worker were up to 64 texts / 8,192 tokens).
import { EngineError } from '../../transcriptions/engine/engine.ts';
import { WorkerPool } from '../../transcriptions/engine/worker-pool.ts';
import type { EmbedCallOptions, Embedded, EmbeddingEngine, Measured } from '../engine.ts';
import { createFairScheduler } from '../fair-scheduler.ts';
import type { UseLiteJob, UseLiteResult, UseLiteWorkerData } from './worker.ts';

export const USE_LITE_DIMENSIONS = 512;
export const USE_LITE_CONTEXT_WINDOW = 512;

/**
 * One embed batch: at most this many texts and tokens (a single text up to the context window always fits). The
 * model's time grows with the texts in a call more than with their tokens (measured on this machine: 16 texts of 82
 * tokens 0.7 s, 16 of 372 tokens 1.1 s, 4 of 372 tokens 0.3 s), so both bound the time another account waits; short
 * texts still go 16 at a time (the worker's former 64 were ≈ 20 % faster per text than 8).
 */
const BATCH_TEXTS = 16;
const BATCH_TOKENS = 512;
/** One tokenize batch: at most this many UTF-16 units (≈ 4,000 tokens, ≈ 0.1 s). */
const TOKENIZE_BATCH_UNITS = 16_384;
/** The turn of calls that name no account. */
const NO_ACCOUNT = '';

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
  // As many batches in the pool as it has workers: what waits, waits here, in turns, not in the pool's FIFO.
  const scheduler = createFairScheduler(options.workers ?? 1);

  function inTurn(job: UseLiteJob, call: EmbedCallOptions): Promise<UseLiteResult> {
    return scheduler.run(call.account ?? NO_ACCOUNT, () => run(job, call.signal), call.signal);
  }

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
    async measure(texts: string[], call: EmbedCallOptions = {}): Promise<Measured> {
      const counts: number[] = [];
      const parts: Int32Array[] = [];
      let complete = true;
      for (const [from, to] of batches(texts.length, (i) => texts[i]!.length, TOKENIZE_BATCH_UNITS, Infinity)) {
        const result = await inTurn({ type: 'tokenize', texts: texts.slice(from, to) }, call);
        if (result.type !== 'tokens')
          throw new EngineError('engine_failed', 'the worker answered a tokenize job wrongly');
        counts.push(...result.counts);
        if (result.ids) parts.push(result.ids);
        else complete = false;
      }
      const state: Tokens | undefined = complete ? { ids: concat(parts), lengths: counts } : undefined;
      return { tokens: counts, exact: true, ...(state ? { state } : {}) };
    },
    async embed(texts: string[], measured: Measured, call: EmbedCallOptions = {}): Promise<Embedded> {
      const tokens = measured.state as Tokens | undefined;
      if (!tokens || tokens.lengths.length !== texts.length) {
        throw new EngineError(
          'engine_failed',
          'embed needs the measure() of the same texts, within the context window',
        );
      }
      const { lengths } = tokens;
      const data = new Float32Array(texts.length * USE_LITE_DIMENSIONS);
      let offset = 0;
      for (const [from, to] of batches(texts.length, (i) => lengths[i]!, BATCH_TOKENS, BATCH_TEXTS)) {
        let count = 0;
        for (let i = from; i < to; i++) count += lengths[i]!;
        const job: UseLiteJob = {
          type: 'embed',
          ids: tokens.ids.slice(offset, offset + count),
          lengths: lengths.slice(from, to),
        };
        offset += count;
        const result = await inTurn(job, call);
        if (result.type !== 'vectors' || result.dimensions !== USE_LITE_DIMENSIONS)
          throw new EngineError('engine_failed', 'the worker answered an embed job wrongly');
        data.set(result.data, from * USE_LITE_DIMENSIONS);
      }
      const vectors: Float32Array[] = [];
      for (let i = 0; i < texts.length; i++) {
        vectors.push(data.subarray(i * USE_LITE_DIMENSIONS, (i + 1) * USE_LITE_DIMENSIONS));
      }
      return { vectors, tokens: lengths.reduce((sum, n) => sum + n, 0) };
    },
    async close() {
      closed = true;
      await pool?.close();
    },
  };
}

/**
 * Consecutive ranges [from, to) of `count` items, each with at most `maxItems` items and at most `maxSize` in total
 * size (an item larger than `maxSize` is a range of its own).
 */
function* batches(
  count: number,
  sizeOf: (index: number) => number,
  maxSize: number,
  maxItems: number,
): Generator<[number, number]> {
  let from = 0;
  while (from < count) {
    let to = from;
    let size = 0;
    while (to < count && to - from < maxItems && (to === from || size + sizeOf(to) <= maxSize)) {
      size += sizeOf(to);
      to += 1;
    }
    yield [from, to];
    from = to;
  }
}

function concat(parts: Int32Array[]): Int32Array {
  const all = new Int32Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    all.set(part, at);
    at += part.length;
  }
  return all;
}
