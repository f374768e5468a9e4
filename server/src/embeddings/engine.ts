// The contract every embedding engine implements (the embedded Universal Sentence Encoder lite, an OpenAI-compatible
// upstream), so the embeddings service, /v3/models and /health treat them alike. Engines fail with the transcription
// engines' EngineError (same codes: `engine_unavailable`, `upstream_error`, `upstream_unreachable`, …), so one mapping
// turns any engine failure into an HTTP answer.
//
// Two steps, because billing sits between them: `measure` counts the tokens of the texts (the request is priced and
// its funds reserved from that count, and a text over the context window is refused before anything is reserved),
// then `embed` computes the vectors. An engine whose tokenizer runs locally counts exactly and `embed` reuses the
// tokens `measure` produced; an upstream's tokenizer is remote, so its `measure` gives an upper bound and the
// upstream's own count (its `usage`) is what is charged.

/** Tokens of each text, as `measure` found them. */
export interface Measured {
  /** Tokens per text, in the order of the texts. */
  tokens: number[];
  /** Whether `tokens` are the engine's exact counts (true) or an upper bound (an upstream tokenizes remotely). */
  exact: boolean;
  /** Engine-specific state `embed` takes back (the local engine's token ids), so texts are tokenized once. */
  state?: unknown;
}

export interface Embedded {
  /** One vector per text, of the engine's native length, in the order of the texts. Not necessarily unit length. */
  vectors: Float32Array[];
  /** Tokens of all texts as the engine counted them (what is charged). */
  tokens: number;
}

/** Who asks, and until when: a local engine takes turns between accounts (fair-scheduler.ts). */
export interface EmbedCallOptions {
  /** The account the texts belong to; calls without one share one turn. */
  account?: string;
  /** Aborting drops the call's work that has not started yet. */
  signal?: AbortSignal;
}

export interface EmbeddingEngine {
  readonly kind: 'use-lite' | 'openai-compatible';
  /** Longest text in tokens that the engine accepts (reported as `context_window` in /v3/models). */
  readonly contextWindow: number;
  /** Length of the vectors `embed` returns; `undefined` when only the upstream knows it (until its first answer). */
  readonly dimensions: number | undefined;
  /** Whether the engine can serve now: `unavailable` after it failed to start or its upstream could not be reached. */
  status(): 'available' | 'unavailable';
  /** Token counts of the texts; a text over `contextWindow` may be counted only as far as needed to know that. */
  measure(texts: string[], options?: EmbedCallOptions): Promise<Measured>;
  embed(texts: string[], measured: Measured, options?: EmbedCallOptions): Promise<Embedded>;
  /** Stops workers; later calls reject with `engine_closed`. */
  close(): Promise<void>;
}
