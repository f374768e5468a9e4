// An embedding engine that forwards to an OpenAI-compatible upstream (OpenAI, a vLLM / text-embeddings-inference
// server, a second Scribe): `POST {baseUrl}/embeddings` with `model`, `input` (the texts) and `encoding_format: base64`
// (a quarter of the JSON; an upstream that ignores it and sends arrays of numbers is understood too).
//
// Decisions:
//  - Tokens: the upstream's tokenizer is remote, so `measure` gives an upper bound — the UTF-8 bytes of each text (a
//    byte-level BPE token covers at least one byte, and so does a SentencePiece token of a Scribe upstream) — which is
//    what is reserved; the upstream's `usage.prompt_tokens` is what is reported and charged (the bound when it sends
//    none). The context window is the upstream's to enforce: its refusal comes back as an `UpstreamRefusal` with the
//    upstream's own code and `param` (e.g. 400 context_length_exceeded, `input.3`).
//  - `dimensions` is not sent: not every upstream supports it. The service shortens and re-normalises the vectors
//    itself, which is what OpenAI's text-embedding-3 models and Scribe do with it anyway.
//  - Status: `unavailable` after a call that could not reach the upstream, `available` again after one that did.
//  - Failures are EngineErrors: `upstream_error` (non-2xx; an UpstreamRefusal for 400), `upstream_unreachable`
//    (network error or `timeoutMs` passed), `upstream_invalid_response` (2xx but not an embedding list), `cancelled`.
import { EngineError } from '../transcriptions/engine/engine.ts';
import { unreachableUpstream } from '../transcriptions/engine/upstream-failure.ts';
import type { Embedded, EmbeddingEngine, Measured } from './engine.ts';
import { fromBase64 } from './vectors.ts';

export interface OpenAiCompatibleEmbeddingOptions {
  /** API root, e.g. "https://api.openai.com/v1" or "http://127.0.0.1:8080/v3". */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <apiKey>`; empty → no Authorization header. */
  apiKey: string;
  /** The upstream's model name, e.g. "text-embedding-3-small" or "service-embedding". */
  model: string;
  /** Reported as the context window; the upstream enforces its own. Default 8191 (OpenAI's embedding models). */
  contextWindow?: number;
  /** Gives up on an upstream that has not answered after this long. Default 60 s. */
  timeoutMs?: number;
}

/** A 400 of the upstream about the request itself, with the upstream's error code and `param`. */
export class UpstreamRefusal extends EngineError {
  constructor(
    message: string,
    readonly upstreamCode: string | undefined,
    readonly param: string | null,
  ) {
    super('upstream_error', message, { status: 400 });
  }
}

interface UpstreamError {
  message?: unknown;
  code?: unknown;
  param?: unknown;
}

export function createOpenAiCompatibleEmbeddingEngine(options: OpenAiCompatibleEmbeddingOptions): EmbeddingEngine {
  const endpoint = `${options.baseUrl.replace(/\/+$/, '')}/embeddings`;
  const timeoutMs = options.timeoutMs ?? 60_000;
  let unreachable = false;
  let closed = false;
  let dimensions: number | undefined;

  return {
    kind: 'openai-compatible',
    contextWindow: options.contextWindow ?? 8191,
    get dimensions() {
      return dimensions;
    },
    status: () => (unreachable || closed ? 'unavailable' : 'available'),
    async measure(texts: string[]): Promise<Measured> {
      return { tokens: texts.map((text) => Buffer.byteLength(text, 'utf8')), exact: false };
    },
    async embed(texts: string[], measured: Measured, embedOptions = {}): Promise<Embedded> {
      if (closed) throw new EngineError('engine_closed', 'the embedding engine has been closed');
      const { signal } = embedOptions;
      const timeout = AbortSignal.timeout(timeoutMs);
      const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
      let body: unknown;
      try {
        const response = await fetch(endpoint, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}),
          },
          body: JSON.stringify({ model: options.model, input: texts, encoding_format: 'base64' }),
          signal: combined,
        });
        const raw = await response.text();
        unreachable = false;
        if (!response.ok) throw refusalOf(endpoint, response.status, response.statusText, raw);
        try {
          body = JSON.parse(raw);
        } catch (error) {
          throw invalidResponse(`its body is not JSON (${raw.slice(0, 80)})`, error);
        }
      } catch (error) {
        if (error instanceof EngineError) throw error;
        if (signal?.aborted)
          throw new EngineError('cancelled', 'the embedding was cancelled', { cause: signal.reason });
        unreachable = true;
        throw unreachableUpstream(error, endpoint, timeout, timeoutMs);
      }
      const vectors = parseEmbeddingList(body, texts.length);
      dimensions = vectors[0]!.length;
      const usage = (body as { usage?: { prompt_tokens?: unknown } }).usage?.prompt_tokens;
      const tokens =
        typeof usage === 'number' && Number.isInteger(usage) && usage >= 0
          ? usage
          : measured.tokens.reduce((sum, n) => sum + n, 0);
      return { vectors, tokens };
    },
    async close() {
      closed = true;
    },
  };
}

/** The vectors of an embedding list, in input order; throws `upstream_invalid_response` on anything else. */
function parseEmbeddingList(body: unknown, count: number): Float32Array[] {
  const data = (body as { data?: unknown } | null)?.data;
  if (!Array.isArray(data) || data.length !== count) {
    throw invalidResponse(`it does not have one vector per text (${count})`);
  }
  const vectors: (Float32Array | undefined)[] = new Array(count);
  data.forEach((item: { index?: unknown; embedding?: unknown }, position) => {
    const index = typeof item?.index === 'number' ? item.index : position;
    if (!Number.isInteger(index) || index < 0 || index >= count || vectors[index]) {
      throw invalidResponse(`an item has the index ${String(item?.index)}`);
    }
    const { embedding } = item;
    let vector: Float32Array;
    if (typeof embedding === 'string') {
      try {
        vector = fromBase64(embedding);
      } catch (error) {
        throw invalidResponse(`item ${index} is not base64 float32 values`, error);
      }
    } else if (Array.isArray(embedding) && embedding.every((v) => typeof v === 'number' && Number.isFinite(v))) {
      vector = Float32Array.from(embedding as number[]);
    } else throw invalidResponse(`item ${index} has no vector`);
    if (vector.length === 0) throw invalidResponse(`item ${index} is an empty vector`);
    vectors[index] = vector;
  });
  const lengths = new Set(vectors.map((v) => v!.length));
  if (lengths.size !== 1) throw invalidResponse('its vectors differ in length');
  return vectors as Float32Array[];
}

function refusalOf(endpoint: string, status: number, statusText: string, raw: string): EngineError {
  let error: UpstreamError | undefined;
  try {
    const parsed = JSON.parse(raw) as { error?: UpstreamError | string; message?: unknown };
    error =
      typeof parsed.error === 'object' && parsed.error ? parsed.error : { message: parsed.error ?? parsed.message };
  } catch {
    // not JSON: the start of the body is the message
  }
  const detail = typeof error?.message === 'string' && error.message ? error.message : raw.trim().slice(0, 200);
  const message = `the upstream (${endpoint}) answered ${status}: ${detail || statusText}`;
  if (status === 400) {
    return new UpstreamRefusal(
      detail || message,
      typeof error?.code === 'string' ? error.code : undefined,
      typeof error?.param === 'string' ? error.param : null,
    );
  }
  return new EngineError('upstream_error', message, { status });
}

function invalidResponse(why: string, cause?: unknown): EngineError {
  return new EngineError('upstream_invalid_response', `the upstream's answer is not an embedding list: ${why}`, {
    cause,
  });
}
