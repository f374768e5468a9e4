// What the chat endpoints need from a text-generation engine: count the prompt's tokens (for the reservation and the
// context check), then generate an answer token by token (a local engine does both in one request: `start`). Two
// engines implement it: `llama` (a local GGUF through node-llama-cpp) and `openai-compatible` (an upstream server's
// `/chat/completions`).
import type { ChatToolCall } from '../../../../generated/client/types.gen.ts';

/**
 * A message as the engines take it: OpenAI's message read by the chat service (openai-messages.ts), with `developer`
 * as `system`, content parts joined into one text, and tool-call history kept (an assistant's `tool_calls`, a tool
 * message's `tool_call_id`). The seed's `ChatMessage` is one of these.
 */
export interface PromptMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string;
  tool_calls?: ChatToolCall[];
  tool_call_id?: string;
}

export type FinishReason = 'stop' | 'length' | 'tool_calls';

/** A function the model may call: its parameters' JSON Schema as the grammar takes it (`{}` args when none). */
export interface ToolFunction {
  name: string;
  description?: string;
  parameters: object;
}

/**
 * The tools of a request: `auto` lets the model choose between text and calls, `required` makes it call one of the
 * functions, `{name}` that function, `none` answers with text. `parallel`: one answer may call several functions.
 */
export interface ToolUse {
  functions: ToolFunction[];
  choice: 'none' | 'auto' | 'required' | { name: string };
  parallel: boolean;
}

/** A piece of a tool call as it is generated: the first of a call has its `name`, later ones argument fragments. */
export interface ToolCallPiece {
  index: number;
  name?: string;
  arguments: string;
}

/** A tool call of an answer: the function and its arguments as a JSON text. */
export interface GeneratedToolCall {
  name: string;
  arguments: string;
}

/** How the answer must be formed: free text, any JSON object, or JSON valid against a schema. */
export type AnswerFormat = { type: 'text' } | { type: 'json_object' } | { type: 'json_schema'; schema: object };

export interface GenerateRequest {
  messages: PromptMessage[];
  /** The account asking: a local model serves the accounts' waiting requests in turns (bounded-queue.ts). */
  account?: string;
  temperature: number;
  /** Upper bound of answer tokens, already clamped to what the model can produce. */
  maxTokens: number;
  format: AnswerFormat;
  /** The functions the model may call (none: a text answer). */
  tools?: ToolUse;
  /** The prompt's tokens as `measure` counted them (saves tokenizing a long prompt twice). */
  promptTokens?: number;
  signal: AbortSignal;
  /**
   * Called with the answer's text as it is generated, all of it before the answer settles; omitted when the caller
   * wants only the whole answer.
   */
  onDelta?(text: string): void;
  /**
   * The shortest time between two `onDelta` calls, each with the text made since the one before (delta-pacer.ts);
   * 0 or omitted: each piece as the model makes it. The engine paces its own text, so that a model on another thread
   * wakes its caller once per piece, not per token.
   */
  deltaIntervalMs?: number;
  /**
   * Called with the pieces of the answer's tool calls as they are generated (streamed answers only); text handed to
   * `onDelta` before a piece is handed on before it.
   */
  onToolCall?(piece: ToolCallPiece): void;
}

export interface GenerateResult {
  content: string;
  /** The functions the answer calls (`finishReason` is then `tool_calls`, unless the answer was cut). */
  toolCalls?: GeneratedToolCall[];
  finishReason: FinishReason;
  promptTokens: number;
  completionTokens: number;
}

export interface PromptMeasure {
  /** Tokens of the rendered chat template (exact for llama, an estimate for an upstream). */
  promptTokens: number;
  /** The most answer tokens the model can still produce after this prompt. */
  maxAnswerTokens: number;
}

interface EngineBase {
  /** Prompt plus answer tokens (undefined when the upstream does not say). */
  contextWindow: number | undefined;
  /**
   * Counts the prompt (with the tools it shows the model); with a JSON format or tools, also prepares their grammars
   * (ChatEngineError `invalid_answer` or `invalid_tool` if it can't).
   */
  measure(messages: PromptMessage[], format?: AnswerFormat, tools?: ToolUse): Promise<PromptMeasure>;
  generate(request: GenerateRequest): Promise<GenerateResult>;
  close(): Promise<void>;
}

/** A generate request before the prompt is measured: `maxTokens` is the caller's bound, not yet clamped. */
export type StartRequest = Omit<GenerateRequest, 'promptTokens'>;

export interface StartedAnswer {
  measure: PromptMeasure;
  /** The answer being generated; undefined when the prompt leaves no room for one (nothing was started). */
  answer?: Promise<GenerateResult>;
}

/** A model this process runs: it costs nothing until asked, so it may start on a prompt before the funds are held. */
export interface LocalChatEngine extends EngineBase {
  kind: 'llama';
  /**
   * Measures the prompt and, when it leaves room for an answer, starts generating at once with `maxTokens` clamped
   * to that room: one request to the model's thread instead of a measure and then a generate, each of which crossed
   * threads twice before the first token.
   */
  start(request: StartRequest): Promise<StartedAnswer>;
}

/** A model on another server: a request it has begun may be billed to us. */
export interface UpstreamChatEngine extends EngineBase {
  kind: 'openai-compatible';
}

export type ChatEngine = LocalChatEngine | UpstreamChatEngine;

/**
 * A failure of an engine. `started`: the model had begun on the prompt (the prompt and the `tokens` generated so far
 * are charged); a failure before that (busy, unreachable, bad schema) charges nothing. `code` says how to answer it
 * when nothing has been streamed yet.
 */
export class ChatEngineError extends Error {
  constructor(
    readonly code:
      | 'engine_unavailable'
      | 'too_many_concurrent_jobs'
      | 'internal_error'
      | 'cancelled'
      | 'invalid_answer'
      | 'invalid_tool'
      | 'context_length_exceeded',
    message: string,
    readonly tokens = 0,
    readonly started = true,
    /** The request field an `invalid_answer` or `invalid_tool` is blamed on. */
    readonly param: string | null = null,
  ) {
    super(message);
    this.name = 'ChatEngineError';
  }
}
