// The `llama` engine: one GGUF file per model id, run on the CPU by node-llama-cpp (prebuilt binary, `build: 'never'`,
// no network). One context per model with one sequence per parallel slot; a bounded queue in front of it; each
// request gets a sequence, a fresh LlamaChat over it and the model's own chat template (resolved by node-llama-cpp
// from the GGUF's `tokenizer.chat_template`).
//
// Token counts are exact: the prompt is the rendered chat template tokenized by the model's tokenizer (what the
// sequence evaluates), the answer is every token node-llama-cpp hands to `onToken`.
import type {
  ChatHistoryItem,
  ChatModelFunctionCall,
  ChatModelFunctions,
  ChatModelResponse,
  Llama,
  LlamaContext,
  LlamaGrammar,
  LlamaModel,
} from 'node-llama-cpp';
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
  type PromptMessage,
  type ToolUse,
  type GeneratedToolCall,
} from './engine.ts';
import { chatFunctionsOf, createForcedCallReader, forcedCallSchema, isForcedCall } from './llama-tool-calls.ts';

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

/** A tool's result as the chat template shows it: the JSON it is, else its text. */
function toolResultOf(content: string): unknown {
  try {
    return JSON.parse(content) as unknown;
  } catch {
    return content;
  }
}

/**
 * The messages as node-llama-cpp's chat history, ending with the model's turn to answer. An assistant's `tool_calls`
 * are function calls of its response, and each tool message is the result of the call it names (the chat service
 * has checked that it names one). After tool results the model continues that same response, as it would have had it
 * called the functions itself.
 */
export function toChatHistory(messages: PromptMessage[]): ChatHistoryItem[] {
  const history: ChatHistoryItem[] = [];
  const calls = new Map<string, ChatModelFunctionCall>();
  for (const message of messages) {
    if (message.role === 'system' || message.role === 'user') {
      history.push({ type: message.role, text: message.content });
      continue;
    }
    if (message.role === 'tool') {
      const call = calls.get(message.tool_call_id ?? '');
      if (call) call.result = toolResultOf(message.content);
      continue;
    }
    const response: ChatModelResponse['response'] = message.content ? [message.content] : [];
    (message.tool_calls ?? []).forEach((toolCall, index) => {
      const call: ChatModelFunctionCall = {
        type: 'functionCall',
        name: toolCall.function.name,
        params: toolResultOf(toolCall.function.arguments),
        result: null,
        ...(index === 0 ? { startsNewChunk: true } : {}),
      };
      calls.set(toolCall.id, call);
      response.push(call);
    });
    const last = history.at(-1);
    // Text after tool results belongs to the response that called them.
    if (last?.type === 'model' && last.response.some((item) => typeof item !== 'string'))
      last.response.push(...response);
    else history.push({ type: 'model', response });
  }
  if (messages.at(-1)?.role !== 'tool') history.push({ type: 'model', response: [] });
  return history;
}

/**
 * node-llama-cpp's rule for a schema's `integer` admits an exponent, and `5e-3` or `1e999` are no integers: a complete
 * answer could then fail its own schema (seen with the tiny model). The rule, as that release writes it, without it.
 */
const INTEGER_EXPONENT = /^(integer-number-rule ::= .*?) \(\[eE\] \[-\+\]\? \("0" \| \[1-9\] \[0-9\]\{0,15\}\)\)\?$/m;

/** The grammar of a JSON schema, its integers plain digits (INTEGER_EXPONENT). */
export async function jsonSchemaGrammar(llama: Llama, schema: object): Promise<LlamaGrammar> {
  const made = await llama.createGrammarForJsonSchema(schema as never);
  const grammar = made.grammar.replace(INTEGER_EXPONENT, '$1');
  if (grammar === made.grammar) return made;
  return llama.createGrammar({
    grammar,
    stopGenerationTriggers: made.stopGenerationTriggers,
    trimWhitespaceSuffix: made.trimWhitespaceSuffix,
  });
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

  /** A grammar made once per schema (the last 100 kept): compiling one costs more than a short answer. */
  function cachedGrammar(key: string, make: () => Promise<LlamaGrammar>): Promise<LlamaGrammar> {
    let grammar = grammars.get(key);
    if (!grammar) {
      grammar = make();
      grammar.catch(() => grammars.delete(key));
      if (grammars.size >= 100) grammars.delete(grammars.keys().next().value!);
      grammars.set(key, grammar);
    }
    return grammar;
  }

  function grammarOf(format: AnswerFormat): Promise<LlamaGrammar> | undefined {
    if (format.type === 'text') return undefined;
    if (format.type === 'json_object') return cachedGrammar('json', () => llama.getGrammarFor('json'));
    return cachedGrammar(JSON.stringify(format.schema), () => jsonSchemaGrammar(llama, format.schema));
  }

  const schemaGrammar = (schema: object) =>
    cachedGrammar(JSON.stringify(schema), () => jsonSchemaGrammar(llama, schema));

  /**
   * The grammar the answer is generated under: one call's under `required` or a named function, else the answer
   * format's. Every function's parameters must make a grammar, whichever is called (400 naming the one that fails).
   */
  async function prepareGrammar(format: AnswerFormat, tools?: ToolUse): Promise<LlamaGrammar | undefined> {
    if (tools && tools.choice !== 'none') {
      for (const [index, tool] of tools.functions.entries()) {
        try {
          await schemaGrammar(tool.parameters);
        } catch (error) {
          const param = `tools.${index}.function.parameters`;
          throw new ChatEngineError(
            'invalid_tool',
            `${param} cannot be turned into a grammar: ${(error as Error).message}`,
            0,
            false,
            param,
          );
        }
      }
      if (isForcedCall(tools)) return schemaGrammar(forcedCallSchema(tools));
    }
    try {
      return await grammarOf(format);
    } catch (error) {
      throw new ChatEngineError(
        'invalid_answer',
        `The JSON schema cannot be turned into a grammar: ${(error as Error).message}`,
        0,
        false,
        'response_format.json_schema.schema',
      );
    }
  }

  /** The prompt as the model evaluates it: the chat template over the history, with the functions documented. */
  function promptTokens(messages: PromptMessage[], functions: ChatModelFunctions | undefined): number {
    const { contextText } = chatWrapper.generateContextState({
      chatHistory: toChatHistory(messages),
      ...(functions ? { availableFunctions: functions, documentFunctionParams: true } : {}),
    });
    return contextText.tokenize(model.tokenizer).length;
  }

  async function measure(messages: PromptMessage[], format?: AnswerFormat, tools?: ToolUse): Promise<PromptMeasure> {
    if (format || tools) await prepareGrammar(format ?? { type: 'text' }, tools);
    const tokens = promptTokens(messages, chatFunctionsOf(tools));
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
    const grammar = await prepareGrammar(request.format, request.tools);
    const functions = chatFunctionsOf(request.tools);
    const forced = isForcedCall(request.tools);
    let release: () => void;
    try {
      release = await queue.acquire(request.account ?? '', request.signal);
    } catch (error) {
      throw refusalOf(error);
    }
    let completionTokens = 0;
    const deltas = deltaSink(request.onDelta, request.deltaIntervalMs);
    // Text already made is handed on before a call's first piece, so a stream keeps the answer's order.
    const onToolCall = (piece: Parameters<NonNullable<GenerateRequest['onToolCall']>>[0]) => {
      if (piece.name !== undefined) deltas.end();
      request.onToolCall?.(piece);
    };
    const forcedCall = forced ? createForcedCallReader(onToolCall) : undefined;
    const chosenArguments = new Map<number, string>();
    const sequence = context.getSequence();
    const chat = new LlamaChat({ contextSequence: sequence, chatWrapper, autoDisposeSequence: false });
    try {
      const history = toChatHistory(request.messages);
      const prompt = request.promptTokens ?? promptTokens(request.messages, functions);
      const result = await chat.generateResponse(history, {
        temperature: request.temperature,
        maxTokens: request.maxTokens,
        signal: request.signal,
        stopOnAbortSignal: false,
        ...(grammar ? { grammar } : {}),
        // The functions are documented in the prompt in every mode; under a grammar (a forced call, or a JSON answer
        // format) the model writes what the grammar allows and node-llama-cpp only stops if it starts a call.
        ...(functions ? { functions, documentFunctionParams: true } : {}),
        ...(functions && grammar ? { abortOnNonText: true } : {}),
        ...(functions && !grammar
          ? {
              ...(request.tools!.parallel ? {} : { maxParallelFunctionCalls: 1 }),
              onFunctionCallParamsChunk: ({ callIndex, functionName, paramsChunk }) => {
                const sofar = chosenArguments.get(callIndex);
                if (sofar === undefined) onToolCall({ index: callIndex, name: functionName, arguments: '' });
                chosenArguments.set(callIndex, (sofar ?? '') + paramsChunk);
                if (paramsChunk) onToolCall({ index: callIndex, arguments: paramsChunk });
              },
            }
          : {}),
        onToken: (tokens) => {
          completionTokens += tokens.length;
        },
        onTextChunk: forcedCall ? forcedCall.add : deltas.add,
      } as Parameters<typeof chat.generateResponse>[1]);
      const cut = result.metadata.stopReason === 'maxTokens';
      let toolCalls: GeneratedToolCall[] = [];
      if (forcedCall) {
        const call = forcedCall.end();
        if (call) toolCalls = [call];
        else if (!cut) throw new Error('the answer is not a function call');
      } else {
        toolCalls = (result.functionCalls ?? []).map((call, index) => ({
          name: call.functionName,
          arguments: chosenArguments.get(index)?.trim() || JSON.stringify(call.params ?? {}),
        }));
      }
      return {
        content: forcedCall ? '' : result.response,
        ...(toolCalls.length ? { toolCalls } : {}),
        finishReason: cut ? 'length' : toolCalls.length ? 'tool_calls' : 'stop',
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
      const measured = await measure(request.messages, request.format, request.tools);
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
