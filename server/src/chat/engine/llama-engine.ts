// The `llama` engine: one GGUF file per model id, run on the CPU by node-llama-cpp (prebuilt binary, `build: 'never'`,
// no network). One context per model with one sequence per parallel slot; a bounded queue in front of it; each
// request gets a sequence, a fresh LlamaChat over it and the model's own chat template (resolved by node-llama-cpp
// from the GGUF's `tokenizer.chat_template`).
//
// Token counts are exact: the prompt is the rendered chat template tokenized by the model's tokenizer (what the
// sequence evaluates), the answer is every token node-llama-cpp hands to `onToken`.
import type { ChatHistoryItem, Llama, LlamaContext, LlamaGrammar, LlamaModel } from 'node-llama-cpp';
import type { ChatMessage } from '../../../../generated/client/types.gen.ts';
import { deltaSink } from '../delta-pacer.ts';
import { AccountQueueFullError, createBoundedQueue, QueueFullError } from './bounded-queue.ts';
import {
  ChatEngineError,
  type AnswerFormat,
  type GenerateRequest,
  type GenerateResult,
  type LocalChatEngine,
  type PromptMeasure,
  type StartedAnswer,
  type StartRequest,
} from './engine.ts';

export interface LlamaEngineOptions {
  modelPath: string;
  /** Context size to allocate (capped by the model's training context). */
  contextSize: number;
  /** Generations run at once on this model (sequences of its context). */
  parallel: number;
  /** CPU threads of this model's context. More threads than free cores make llama.cpp spin and slow down sharply. */
  threads: number;
  /** Requests that may wait for a slot; one more is refused as busy. */
  maxWaiting: number;
  /** Requests of one account that may wait for a slot (default `maxWaiting`); one more is refused for that account. */
  maxWaitingPerAccount?: number;
}

let sharedLlama: Promise<Llama> | undefined;

/**
 * node-llama-cpp is loaded with the first chat model, not with the server: its module graph is the largest of the
 * server's (≈ 0.4 s of CPU per process), and a server without chat models, or a process that never generates, does
 * not need it.
 */
const nodeLlamaCpp = () => import('node-llama-cpp');

/** One llama.cpp runtime per process, CPU only; never builds or downloads anything. */
export function llamaRuntime(): Promise<Llama> {
  sharedLlama ??= nodeLlamaCpp().then(({ getLlama }) =>
    getLlama({ gpu: false, build: 'never', progressLogs: false, logLevel: 'error' as never }),
  );
  return sharedLlama;
}

export function toChatHistory(messages: ChatMessage[]): ChatHistoryItem[] {
  const history: ChatHistoryItem[] = messages.map((message) =>
    message.role === 'assistant'
      ? { type: 'model', response: [message.content] }
      : { type: message.role, text: message.content },
  );
  history.push({ type: 'model', response: [] });
  return history;
}

export async function createLlamaEngine(options: LlamaEngineOptions): Promise<LocalChatEngine & { model: LlamaModel }> {
  const llama = await llamaRuntime();
  const { LlamaChat, resolveChatWrapper } = await nodeLlamaCpp();
  const model = await llama.loadModel({ modelPath: options.modelPath });
  const contextSize = Math.min(options.contextSize, model.trainContextSize);
  const context: LlamaContext = await model.createContext({
    contextSize,
    sequences: options.parallel,
    threads: options.threads,
  });
  const chatWrapper = resolveChatWrapper(model);
  const queue = createBoundedQueue(options.parallel, options.maxWaiting, options.maxWaitingPerAccount);
  const grammars = new Map<string, Promise<LlamaGrammar>>();

  function grammarOf(format: AnswerFormat): Promise<LlamaGrammar> | undefined {
    if (format.type === 'text') return undefined;
    const key = format.type === 'json_object' ? 'json' : JSON.stringify(format.schema);
    let grammar = grammars.get(key);
    if (!grammar) {
      grammar =
        format.type === 'json_object'
          ? llama.getGrammarFor('json')
          : llama.createGrammarForJsonSchema(format.schema as never);
      grammar.catch(() => grammars.delete(key));
      if (grammars.size >= 100) grammars.delete(grammars.keys().next().value!);
      grammars.set(key, grammar);
    }
    return grammar;
  }

  async function prepareGrammar(format: AnswerFormat): Promise<LlamaGrammar | undefined> {
    try {
      return await grammarOf(format);
    } catch (error) {
      throw new ChatEngineError(
        'invalid_answer',
        `The JSON schema cannot be turned into a grammar: ${(error as Error).message}`,
        0,
        false,
      );
    }
  }

  function promptTokens(messages: ChatMessage[]): number {
    const { contextText } = chatWrapper.generateContextState({ chatHistory: toChatHistory(messages) });
    return contextText.tokenize(model.tokenizer).length;
  }

  async function measure(messages: ChatMessage[], format?: AnswerFormat): Promise<PromptMeasure> {
    if (format) await prepareGrammar(format);
    const tokens = promptTokens(messages);
    return { promptTokens: tokens, maxAnswerTokens: Math.max(0, contextSize - tokens) };
  }

  /** A full queue as the engine's refusal: the whole queue is busy (503); the account's share is full (429). */
  function refusalOf(error: unknown): ChatEngineError {
    if (error instanceof AccountQueueFullError)
      return new ChatEngineError(
        'too_many_concurrent_jobs',
        'This account already has as many requests waiting for this model as it may; retry when one is answered.',
        0,
        false,
      );
    if (error instanceof QueueFullError)
      return new ChatEngineError(
        'engine_unavailable',
        'The model is busy with other requests; retry shortly.',
        0,
        false,
      );
    return new ChatEngineError('cancelled', 'The request was abandoned while it waited for the model.', 0, false);
  }

  async function generate(request: GenerateRequest): Promise<GenerateResult> {
    const grammar = await prepareGrammar(request.format);
    let release: () => void;
    try {
      release = await queue.acquire(request.account ?? '', request.signal);
    } catch (error) {
      throw refusalOf(error);
    }
    let completionTokens = 0;
    const deltas = deltaSink(request.onDelta, request.deltaIntervalMs);
    const sequence = context.getSequence();
    const chat = new LlamaChat({ contextSequence: sequence, chatWrapper, autoDisposeSequence: false });
    try {
      const history = toChatHistory(request.messages);
      const prompt = request.promptTokens ?? promptTokens(request.messages);
      const result = await chat.generateResponse(history, {
        temperature: request.temperature,
        maxTokens: request.maxTokens,
        signal: request.signal,
        stopOnAbortSignal: false,
        ...(grammar ? { grammar } : {}),
        onToken: (tokens) => {
          completionTokens += tokens.length;
        },
        onTextChunk: deltas.add,
      });
      const reason = result.metadata.stopReason;
      return {
        content: result.response,
        finishReason: reason === 'maxTokens' ? 'length' : 'stop',
        promptTokens: prompt,
        completionTokens,
      };
    } catch (error) {
      if (request.signal.aborted) throw new ChatEngineError('cancelled', 'The client went away.', completionTokens);
      throw new ChatEngineError(
        'internal_error',
        `The model stopped unexpectedly: ${(error as Error).message}`,
        completionTokens,
      );
    } finally {
      deltas.end();
      chat.dispose();
      sequence.dispose();
      release();
    }
  }

  return {
    kind: 'llama',
    contextWindow: contextSize,
    model,
    measure,
    generate,

    async start({ maxTokens, ...request }: StartRequest): Promise<StartedAnswer> {
      // A full queue refuses the request here, before `started`, so it is the start's failure: an HTTP error
      // response, also for a streamed request (after `started` it could only be an event in the stream). Measuring
      // is synchronous unless a new grammar is compiled, so the queue seldom fills in between; if it does, the
      // answer fails the same way, later.
      const refused = queue.refusal(request.account ?? '');
      if (refused) throw refusalOf(refused);
      const measured = await measure(request.messages, request.format);
      if (measured.maxAnswerTokens < 1) return { measure: measured };
      const answer = generate({
        ...request,
        maxTokens: Math.min(maxTokens, measured.maxAnswerTokens),
        promptTokens: measured.promptTokens,
      });
      return { measure: measured, answer };
    },

    async close() {
      await context.dispose();
      await model.dispose();
    },
  };
}
