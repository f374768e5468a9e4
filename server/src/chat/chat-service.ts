// One chat request from validation to the charge: resolve the model's engine (503 when none is configured), check the
// answer format, measure the prompt (400 context_length_exceeded when it leaves no room), reserve prompt +
// min(max_tokens, cap) tokens (402 when short), generate, check the JSON modes, and capture the tokens actually used.
// A local model measures and starts generating in one step, before the funds are held (see `beginLocal`).
// A failure or a client that goes away releases the reservation and charges only the tokens generated so far.
// Answers are a `chat.completion` object, or an SSE stream of chunks framed as the seed says.
import { randomUUID } from 'node:crypto';
import type {
  ChatCompletion,
  ChatCompletionChunk,
  ErrorObject,
  ChatResponseFormat,
  ChatToolCallDelta,
  FinishReason,
  TokenUsage,
} from '../../../generated/client/types.gen.ts';
import type { AccountRow } from '../accounts/store.ts';
import type { Ledger, Reservation } from '../billing/ledger.ts';
import { quote } from '../billing/prices.ts';
import type { PriceTable } from '../config.ts';
import { ApiError } from '../http/api-error.ts';
import { errorTypeOf } from '../http/render-error.ts';
import { chatModelVariables, type ChatModelId } from './config.ts';
import {
  ChatEngineError,
  type ChatEngine,
  type GenerateRequest,
  type GenerateResult,
  type LocalChatEngine,
  type PromptMeasure,
  type PromptMessage,
  type StartedAnswer,
} from './engine/engine.ts';
import type { ChatEngines } from './engines.ts';
import { answerFormatOf, invalidAnswerParam } from './json-answer.ts';
import { createSseStream, type SseStream } from './sse-stream.ts';
import { toolCallId, toolCallsOf, toolPlanOf, type ToolPlan, type ToolRequest } from './tool-calls.ts';

/** The contract's default and upper bound of `max_tokens`. */
export const MAX_TOKENS = 32000;

export interface ChatCall {
  account: AccountRow;
  model: ChatModelId;
  messages: PromptMessage[];
  temperature: number;
  /** `max_completion_tokens ?? max_tokens` as sent; undefined = as many as the model can produce (≤ 32000). */
  maxTokens: number | undefined;
  responseFormat?: ChatResponseFormat;
  /** The functions the model may call (OpenAI routes only). */
  tools?: ToolRequest;
  includeUsage: boolean;
  /** `free`: nothing is reserved or charged (the v2 transcript chat's free requests). */
  billing: 'charge' | 'free';
  signal: AbortSignal;
  /** Called once with the finished answer (the v2 transcript chat stores its history there). */
  onAnswer?(answer: { content: string; usage: TokenUsage }): Promise<void>;
  /** Called once when no answer came (refused, failed or abandoned). */
  onFailed?(): Promise<void>;
}

export interface ChatServiceDeps {
  engines: ChatEngines;
  ledger: Ledger;
  prices: PriceTable;
  reserveCapTokens: number;
}

/** What is known of a call once it is accepted, before any money is held. */
interface Measured {
  engine: ChatEngine;
  check: (content: string) => void;
  tools: ToolPlan;
  format: ReturnType<typeof answerFormatOf>['format'];
  promptTokens: number;
  limit: number;
  id: string;
  created: number;
}

interface Prepared extends Measured {
  /** The hold on the account's funds (undefined: nothing to hold); see `begin` for when it is taken. */
  reservation: Promise<Reservation | undefined>;
}

/** A call accepted with its funds held, and its answer on the way. */
interface Begun {
  prepared: Prepared;
  answer: Promise<GenerateResult>;
}

type AnswerFormatCheck = ReturnType<typeof answerFormatOf>;

/**
 * The shortest time between two content deltas of a streamed answer (the contract says "at most about every 20 ms").
 * The engine paces its text (delta-pacer.ts) and each piece it hands on is written as one event. Each delta wakes the
 * server's thread and the reader, and on two cores those wake-ups slow a fast model: with the tiny test model (≈ 2000
 * tokens/s) the stream's pace was 0.92–0.96 × the engine's own at 10 ms and 0.97–1.04 × at 20 ms (five alternating
 * pairs of `npm run bench:chat` runs). A model slower than 50 tokens/s still gets a delta per token; a reader sees text
 * at 50 updates a second either way.
 */
const DELTA_INTERVAL_MS = 20;

/** How a call wants its answer's text while it is generated (nothing, for a call that waits for the whole answer). */
type Deltas = Pick<GenerateRequest, 'onDelta' | 'deltaIntervalMs' | 'onToolCall'>;

const usageOf = (promptTokens: number, completionTokens: number): TokenUsage => ({
  prompt_tokens: promptTokens,
  completion_tokens: completionTokens,
  total_tokens: promptTokens + completionTokens,
});

/** How an engine failure is answered before anything was streamed. */
export function apiErrorOf(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  const invalid = invalidAnswerParam(error);
  if (invalid) return new ApiError(400, 'invalid_parameter', (error as Error).message, invalid);
  if (error instanceof ChatEngineError) {
    if (error.code === 'engine_unavailable') return new ApiError(503, 'engine_unavailable', error.message, 'model');
    if (error.code === 'too_many_concurrent_jobs')
      return new ApiError(429, 'too_many_concurrent_jobs', error.message, null, { 'Retry-After': '1' });
    if (error.code === 'invalid_answer' || error.code === 'invalid_tool')
      return new ApiError(400, 'invalid_parameter', error.message, error.param ?? 'response_format.json_schema.schema');
    return new ApiError(500, 'internal_error', error.message);
  }
  return new ApiError(500, 'internal_error', 'The model stopped unexpectedly.');
}

/** The error object of an in-band error event. */
export const errorObjectOf = (error: ApiError): ErrorObject => ({
  type: errorTypeOf(error.status),
  code: error.code as ErrorObject['code'],
  message: error.message,
  param: error.param,
});

export function createChatService(deps: ChatServiceDeps) {
  const chargeOf = (model: ChatModelId, promptTokens: number, completionTokens: number) =>
    quote({ type: 'chat', model, prompt_tokens: promptTokens, completion_tokens: completionTokens }, deps.prices)
      .amountMinor;

  function engineOf(model: ChatModelId): ChatEngine {
    const engine = deps.engines[model];
    if (!engine) {
      throw new ApiError(
        503,
        'engine_unavailable',
        `No engine is configured for ${model}; set ${chatModelVariables[model]} to a GGUF path or ` +
          'openai:<base-url>#<model>.',
        'model',
      );
    }
    return engine;
  }

  /** The call as accepted once its prompt is measured: 400 when the prompt leaves no room for an answer. */
  function accept(
    call: ChatCall,
    engine: ChatEngine,
    { format, check }: AnswerFormatCheck,
    tools: ToolPlan,
    measure: PromptMeasure,
  ): Measured {
    if (measure.maxAnswerTokens < 1) {
      throw new ApiError(
        400,
        'context_length_exceeded',
        `The messages have ${measure.promptTokens} tokens; the context window of ${call.model} is ` +
          `${engine.contextWindow ?? measure.promptTokens} tokens.`,
        'messages',
      );
    }
    const limit = Math.min(call.maxTokens ?? MAX_TOKENS, measure.maxAnswerTokens);
    return {
      engine,
      check,
      tools,
      format,
      promptTokens: measure.promptTokens,
      limit,
      id: `chatcmpl-${randomUUID().replace(/-/g, '')}`,
      created: Math.floor(Date.now() / 1000),
    };
  }

  /** Holds prompt + min(limit, cap) tokens' worth of funds (402 when short); nothing for free calls. */
  async function reserve(call: ChatCall, measured: Measured): Promise<Reservation | undefined> {
    if (call.billing !== 'charge') return undefined;
    const amount = chargeOf(call.model, measured.promptTokens, Math.min(measured.limit, deps.reserveCapTokens));
    return amount > 0 ? deps.ledger.reserve(call.account.id, amount, `chat:${measured.id}`) : undefined;
  }

  /** Accepts a call and starts its answer; resolves once the funds are held, rejects with what refused the call. */
  async function begin(call: ChatCall, deltas: Deltas = {}): Promise<Begun> {
    let engine: ChatEngine;
    let format: AnswerFormatCheck;
    let tools: ToolPlan;
    try {
      engine = engineOf(call.model);
      format = answerFormatOf(call.responseFormat);
      tools = toolPlanOf(call.tools ?? {});
    } catch (error) {
      await call.onFailed?.();
      throw error;
    }
    return engine.kind === 'llama'
      ? beginLocal(call, engine, format, tools, deltas)
      : beginUpstream(call, engine, format, tools, deltas);
  }

  /**
   * A local model measures the prompt and starts on it in one step, and the reservation's transaction runs while it
   * evaluates the prompt (which takes longer): the first token waits for neither the database nor a second trip to
   * the model's thread. When the funds do not cover the call, the model is stopped before anything was answered and
   * the 402 is the response; nothing is charged.
   */
  async function beginLocal(
    call: ChatCall,
    engine: LocalChatEngine,
    format: AnswerFormatCheck,
    tools: ToolPlan,
    deltas: Deltas,
  ): Promise<Begun> {
    const refused = new AbortController();
    let measured: Measured;
    let started: StartedAnswer;
    try {
      started = await engine
        .start({
          messages: call.messages,
          account: call.account.id,
          temperature: call.temperature,
          maxTokens: call.maxTokens ?? MAX_TOKENS,
          format: format.format,
          ...(tools.local ? { tools: tools.local } : {}),
          signal: AbortSignal.any([call.signal, refused.signal]),
          ...deltas,
        })
        .catch((error: unknown) => {
          throw apiErrorOf(error);
        });
      // No answer was started exactly when the prompt leaves no room: `accept` refuses that call.
      measured = accept(call, engine, format, tools, started.measure);
    } catch (error) {
      await call.onFailed?.();
      throw error;
    }
    const prepared: Prepared = { ...measured, reservation: reserve(call, measured) };
    const answer = run(call, prepared, started.answer!);
    // The answer may fail while the funds are still being held (a busy model); its caller sees that failure later.
    answer.catch(() => undefined);
    try {
      await prepared.reservation;
    } catch (error) {
      refused.abort();
      await answer.catch(() => undefined);
      throw error;
    }
    return { prepared, answer };
  }

  /** An upstream model is asked only once the funds are held, since a request it has begun may be billed to us. */
  async function beginUpstream(
    call: ChatCall,
    engine: ChatEngine,
    format: AnswerFormatCheck,
    tools: ToolPlan,
    deltas: Deltas,
  ): Promise<Begun> {
    let prepared: Prepared;
    try {
      const measure = await engine.measure(call.messages, format.format, tools.upstream).catch((error: unknown) => {
        throw apiErrorOf(error);
      });
      const measured = accept(call, engine, format, tools, measure);
      prepared = { ...measured, reservation: reserve(call, measured) };
      await prepared.reservation;
    } catch (error) {
      await call.onFailed?.();
      throw error;
    }
    const answer = engine.generate({
      messages: call.messages,
      temperature: call.temperature,
      maxTokens: prepared.limit,
      format: prepared.format,
      ...(tools.upstream ? { tools: tools.upstream } : {}),
      promptTokens: prepared.promptTokens,
      signal: call.signal,
      ...deltas,
    });
    return { prepared, answer: run(call, prepared, answer) };
  }

  /** Captures the tokens used (also after a failure: what was generated is charged). */
  async function settle(call: ChatCall, prepared: Prepared, promptTokens: number, completionTokens: number) {
    // A refused reservation holds nothing; its refusal is the call's answer (see `begin`).
    const reservation = await prepared.reservation.catch(() => undefined);
    if (!reservation) return;
    await deps.ledger.settle(
      reservation.id,
      chargeOf(call.model, promptTokens, completionTokens),
      `${call.model}: ${promptTokens} prompt + ${completionTokens} completion tokens`,
    );
  }

  /** Settles a started answer; a failure also tells the caller there is no answer. */
  async function run(call: ChatCall, prepared: Prepared, answer: Promise<GenerateResult>): Promise<GenerateResult> {
    try {
      return await finish(call, prepared, answer);
    } catch (error) {
      await call.onFailed?.();
      throw error;
    }
  }

  /** The engine has handed on all the answer's text when `answer` settles: a stream's last text waits for no charge. */
  async function finish(call: ChatCall, prepared: Prepared, answer: Promise<GenerateResult>): Promise<GenerateResult> {
    let result: GenerateResult;
    try {
      result = await answer;
    } catch (error) {
      // Refused before the model began (busy, unreachable): nothing is charged; otherwise the prompt and the tokens
      // generated so far are.
      if (error instanceof ChatEngineError && !error.started) await settle(call, prepared, 0, 0);
      else await settle(call, prepared, prepared.promptTokens, error instanceof ChatEngineError ? error.tokens : 0);
      throw error;
    }
    // A local model can finish a short answer before its funds are held; the answer counts only once they are (a
    // refusal rejects here, and the call ends as refused: nothing charged, `onAnswer` never called).
    await prepared.reservation;
    try {
      // A JSON answer cut by max_tokens is incomplete by nature: the caller sees `finish_reason: length`. An answer
      // that calls tools is judged by its calls (an upstream's are passed on as its model made them).
      if (result.finishReason !== 'length') {
        if (!result.toolCalls?.length) prepared.check(result.content);
        else if (prepared.engine.kind === 'llama') prepared.tools.check(result.toolCalls);
      }
    } catch (error) {
      await settle(call, prepared, result.promptTokens, result.completionTokens);
      throw error;
    }
    await settle(call, prepared, result.promptTokens, result.completionTokens);
    await call.onAnswer?.({ content: result.content, usage: usageOf(result.promptTokens, result.completionTokens) });
    return result;
  }

  return {
    /** The prompt measure of a model's engine (503 when the model has none). */
    measure: (model: ChatModelId, messages: PromptMessage[]) => engineOf(model).measure(messages),

    /** The whole answer as a `chat.completion`. */
    async complete(call: ChatCall): Promise<ChatCompletion> {
      const { prepared, answer } = await begin(call);
      let result: GenerateResult;
      try {
        result = await answer;
      } catch (error) {
        throw apiErrorOf(error);
      }
      const calls = result.toolCalls?.length ? toolCallsOf(result.toolCalls) : undefined;
      return {
        id: prepared.id,
        object: 'chat.completion',
        created: prepared.created,
        model: call.model,
        choices: [
          {
            index: 0,
            // OpenAI's shape of an answer that only calls tools: `content` null.
            message: calls
              ? { role: 'assistant', content: result.content || null, tool_calls: calls }
              : { role: 'assistant', content: result.content },
            finish_reason: result.finishReason,
          },
        ],
        usage: usageOf(result.promptTokens, result.completionTokens),
      };
    },

    /**
     * The answer's text handed to `onDelta` and its tool calls' pieces to `onToolCall` as they are generated, paced as
     * in `stream`, for a route that frames its own events (the Responses API). Refusals reject before this returns, as
     * in `stream`; `answer` rejects with the ApiError a failure after that would have had. Both may be called before
     * this returns (a local model starts while the funds are being held).
     */
    async generate(
      call: ChatCall,
      deltas: Required<Pick<GenerateRequest, 'onDelta' | 'onToolCall'>>,
    ): Promise<{ id: string; created: number; answer: Promise<GenerateResult> }> {
      const { prepared, answer } = await begin(call, { ...deltas, deltaIntervalMs: DELTA_INTERVAL_MS });
      const mapped = answer.catch((error: unknown) => {
        throw apiErrorOf(error);
      });
      return { id: prepared.id, created: prepared.created, answer: mapped };
    },

    /**
     * The answer as server-sent events. Everything that can be refused (engine, format, context, funds) is refused
     * before this returns, as an ordinary error response; after that, failures are in-band error events.
     */
    async stream(call: ChatCall): Promise<SseStream> {
      // Content deltas as the engine paces them, at most every DELTA_INTERVAL_MS, each written when it comes. The
      // engine hands on the text still held when the model stops at once, so it waits neither for the interval nor
      // for the settling of the answer's charge (a database transaction): the reader has the whole answer as soon as
      // it exists. Text made before the call is accepted (the model starts while the funds are being held) waits
      // until the stream exists.
      type Delta = ChatCompletionChunk['choices'][number]['delta'];
      const early: Delta[] = [];
      let write: (delta: Delta) => void = (delta) => {
        const last = early.at(-1);
        if (last?.content !== undefined && delta.content !== undefined) last.content += delta.content;
        else early.push(delta);
      };
      // A call's id is made with its first piece (the stream names the call before its arguments).
      const pieceOf = (piece: { index: number; name?: string; arguments: string }): ChatToolCallDelta =>
        piece.name !== undefined
          ? {
              index: piece.index,
              id: toolCallId(),
              type: 'function',
              function: { name: piece.name, arguments: '' },
            }
          : { index: piece.index, function: { arguments: piece.arguments } };
      const { prepared, answer } = await begin(call, {
        onDelta: (text) => write({ content: text }),
        onToolCall: (piece) => write({ tool_calls: [pieceOf(piece)] }),
        deltaIntervalMs: DELTA_INTERVAL_MS,
      });
      const sse = createSseStream();
      const chunk = (delta: Delta, finish: FinishReason | null) =>
        ({
          id: prepared.id,
          object: 'chat.completion.chunk',
          created: prepared.created,
          model: call.model,
          choices: [{ index: 0, delta, finish_reason: finish }],
        }) satisfies ChatCompletionChunk;
      sse.send(chunk({ role: 'assistant', content: '' }, null));
      write = (delta) => sse.send(chunk(delta, null));
      for (const delta of early) write(delta);
      void answer
        .then((result) => {
          sse.send(chunk({}, result.finishReason));
          if (call.includeUsage) {
            sse.send({
              id: prepared.id,
              object: 'chat.completion.chunk',
              created: prepared.created,
              model: call.model,
              choices: [],
              usage: usageOf(result.promptTokens, result.completionTokens),
            });
          }
        })
        .catch((error: unknown) => {
          if (!call.signal.aborted) sse.send({ error: errorObjectOf(apiErrorOf(error)) });
        })
        .finally(() => {
          sse.send('[DONE]');
          sse.end();
        });
      return sse;
    },
  };
}

export type ChatService = ReturnType<typeof createChatService>;
