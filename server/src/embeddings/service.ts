// One embedding request, for both endpoints (`POST /v3/embeddings/create` and its OpenAI twin `POST /v3/embeddings`):
// count the tokens, refuse a text over the context window, reserve the price of the tokens (402 when the available
// balance does not cover it), compute the vectors, charge the tokens the engine counted and release the rest, then
// shorten, re-normalise and encode the vectors.
//
// Decisions:
//  - Tokens are the engine's: for the embedded USE engine its own SentencePiece tokens (exact, known before anything
//    is reserved); for an upstream the reservation covers an upper bound and the upstream's usage is charged — never
//    more than was reserved.
//  - The price is the one /v3/billing/calculate quotes for `{type: embedding, tokens}` (per 1,000 tokens, rounded half
//    up to whole minor units per request). A request whose price rounds to 0 leaves no ledger entries.
//  - A failed engine call releases the reservation in full: nothing is charged for vectors that were not returned.
//  - Bounded per account: at most `maxAccountRequests` requests of one account are in progress in this process (one
//    more is 429 `too_many_concurrent_jobs` with Retry-After), and a request has at most `maxRequestTokens` tokens in
//    all (400 `invalid_parameter`, param `input`), so one account's queued work is bounded; the engine serves the
//    accounts' batches in turns, so that work delays another account's request by about one batch.
//  - Engine failures are 503 `engine_unavailable` with a message that names no internal address (the details go to
//    the log); an upstream's refusal of the input (its 400) is passed on as a 400 with its code and `param`.
import type { Logger } from 'pino';
import type { Embedding, EmbeddingList, EmbeddingRequest } from '../../../generated/client/types.gen.ts';
import type { AccountRow } from '../accounts/store.ts';
import type { Ledger, Reservation } from '../billing/ledger.ts';
import { quote } from '../billing/prices.ts';
import type { PriceTable } from '../config.ts';
import { ApiError, errors, type ServerErrorCode } from '../http/api-error.ts';
import { EngineError } from '../transcriptions/engine/engine.ts';
import type { EmbeddingEngine } from './engine.ts';
import { UpstreamRefusal } from './openai-compatible.ts';
import { encodeVector, shorten } from './vectors.ts';

export const EMBEDDING_MODEL = 'service-embedding';
/** The contract's largest `dimensions` (and the length of `service-embedding` vectors). */
export const MAX_DIMENSIONS = 512;

export interface EmbeddingServiceDeps {
  engine: EmbeddingEngine;
  ledger: Ledger;
  prices: PriceTable;
  /** Most texts in one request (SCRIBE_EMBEDDING_MAX_INPUTS, at most the contract's 2048). */
  maxInputs: number;
  /** Most tokens of all texts of one request (SCRIBE_EMBEDDING_MAX_TOKENS, at most the contract's 300,000). */
  maxRequestTokens: number;
  /** Requests of one account in progress at once (SCRIBE_EMBEDDING_ACCOUNT_REQUESTS). */
  maxAccountRequests: number;
  logger: Logger;
}

const PASSED_ON_CODES = new Set<ServerErrorCode>(['context_length_exceeded', 'invalid_parameter', 'missing_parameter']);

export function createEmbeddingService(deps: EmbeddingServiceDeps) {
  const { engine, ledger, prices, maxInputs, maxRequestTokens, maxAccountRequests, logger } = deps;
  /** Requests in progress per account id (entries removed at 0). */
  const inProgress = new Map<string, number>();
  const priceOf = (tokens: number) => quote({ type: 'embedding', tokens }, prices).amountMinor;

  /** Engine failures as answers: the input's fault stays a 400, anything else is the engine's (503). */
  function failureOf(error: unknown, requestId: string, signal?: AbortSignal): unknown {
    // The client went away and its remaining batches were dropped: nobody reads this answer, nothing to log.
    if (signal?.aborted) return new ApiError(503, 'engine_unavailable', 'The request was abandoned.', 'model');
    if (error instanceof UpstreamRefusal) {
      const code = PASSED_ON_CODES.has(error.upstreamCode as ServerErrorCode)
        ? (error.upstreamCode as ServerErrorCode)
        : 'invalid_parameter';
      return new ApiError(
        400,
        code,
        `The embedding engine refused the input: ${error.message}`,
        error.param ?? 'input',
      );
    }
    if (!(error instanceof EngineError)) return error;
    logger.warn({ requestId, code: error.code, err: error }, 'embedding engine failed');
    const message =
      engine.kind === 'openai-compatible'
        ? `The upstream engine of ${EMBEDDING_MODEL} could not answer (${error.code}); try again later.`
        : `The embedding engine of ${EMBEDDING_MODEL} could not run (${error.code}); try again later.`;
    return new ApiError(503, 'engine_unavailable', message, 'model');
  }

  /** Counts the request against its account's bound for as long as `work` runs. */
  async function counted<T>(accountId: string, work: () => Promise<T>): Promise<T> {
    const current = inProgress.get(accountId) ?? 0;
    if (current >= maxAccountRequests) {
      throw new ApiError(
        429,
        'too_many_concurrent_jobs',
        `This account already has ${maxAccountRequests} embedding requests in progress; send the next one when one ` +
          'of them has been answered.',
        null,
        { 'Retry-After': '1' },
      );
    }
    inProgress.set(accountId, current + 1);
    try {
      return await work();
    } finally {
      const left = (inProgress.get(accountId) ?? 1) - 1;
      if (left > 0) inProgress.set(accountId, left);
      else inProgress.delete(accountId);
    }
  }

  return {
    /** `signal`: the client went away; the request's batches that have not run yet are dropped. */
    create: (
      account: AccountRow,
      request: EmbeddingRequest,
      requestId: string,
      signal?: AbortSignal,
    ): Promise<EmbeddingList> => counted(account.id, () => create(account, request, requestId, signal)),
  };

  async function create(
    account: AccountRow,
    request: EmbeddingRequest,
    requestId: string,
    signal: AbortSignal | undefined,
  ): Promise<EmbeddingList> {
    const call = { account: account.id, ...(signal ? { signal } : {}) };
    const single = typeof request.input === 'string';
    const texts = typeof request.input === 'string' ? [request.input] : request.input;
    if (texts.length > maxInputs) {
      throw errors.invalidParameter('input', `input may contain at most ${maxInputs} texts.`);
    }
    const native = Math.min(engine.dimensions ?? MAX_DIMENSIONS, MAX_DIMENSIONS);
    if (request.dimensions !== undefined && request.dimensions > native) {
      throw errors.invalidParameter('dimensions', `dimensions must be between 1 and ${native}.`);
    }

    let measured;
    try {
      measured = await engine.measure(texts, call);
    } catch (error) {
      throw failureOf(error, requestId, signal);
    }
    if (measured.exact) {
      const over = measured.tokens.findIndex((tokens) => tokens > engine.contextWindow);
      if (over >= 0) {
        const param = single ? 'input' : `input.${over}`;
        throw new ApiError(
          400,
          'context_length_exceeded',
          `${param} has more than ${engine.contextWindow} tokens; ${EMBEDDING_MODEL} accepts at most ` +
            `${engine.contextWindow} tokens per text.`,
          param,
        );
      }
      const total = measured.tokens.reduce((sum, n) => sum + n, 0);
      if (total > maxRequestTokens) {
        throw errors.invalidParameter(
          'input',
          `input has ${total} tokens in all; ${EMBEDDING_MODEL} accepts at most ${maxRequestTokens} tokens per ` +
            'request. Split it into smaller requests.',
        );
      }
    }

    const bound = measured.tokens.reduce((sum, n) => sum + n, 0);
    const reserveMinor = priceOf(bound);
    const reference = `embedding:${requestId}`.slice(0, 128);
    const reservation: Reservation | undefined =
      reserveMinor > 0 ? await ledger.reserve(account.id, reserveMinor, reference) : undefined;

    let embedded;
    try {
      embedded = await engine.embed(texts, measured, call);
      const length = embedded.vectors[0]?.length ?? 0;
      if (request.dimensions !== undefined && request.dimensions > length) {
        throw errors.invalidParameter('dimensions', `dimensions must be between 1 and ${length}.`);
      }
    } catch (error) {
      if (reservation) await ledger.settle(reservation.id, 0);
      throw failureOf(error, requestId, signal);
    }

    const chargeMinor = Math.min(priceOf(embedded.tokens), reserveMinor);
    if (reservation) {
      await ledger.settle(reservation.id, chargeMinor, `service-embedding_tokens ${embedded.tokens} tokens`);
    }

    const dimensions = request.dimensions ?? Math.min(embedded.vectors[0]!.length, MAX_DIMENSIONS);
    const format = request.encoding_format ?? 'float';
    const data: Embedding[] = embedded.vectors.map((vector, index) => ({
      object: 'embedding',
      index,
      embedding: encodeVector(shorten(vector, dimensions), format),
    }));
    return {
      object: 'list',
      data,
      model: EMBEDDING_MODEL,
      usage: { prompt_tokens: embedded.tokens, total_tokens: embedded.tokens },
    };
  }
}

export type EmbeddingService = ReturnType<typeof createEmbeddingService>;
