// The messages between the llama engine's worker thread (llama-worker.ts) and the engine the chat service uses
// (llama-worker-engine.ts). Requests carry an id. A `start` is answered `started` (the prompt's measure); when the
// prompt leaves room, its generation follows: `delta`s and `toolCall` pieces, then `done` or `failed`.
import type {
  AnswerFormat,
  ChatEngineError,
  GenerateResult,
  PromptMeasure,
  StartRequest,
  PromptMessage,
  ToolCallPiece,
  ToolUse,
} from './engine.ts';

export type ToLlamaWorker =
  | { type: 'measure'; id: number; messages: PromptMessage[]; format?: AnswerFormat; tools?: ToolUse }
  /** Measure the prompt, then generate when it leaves room (LocalChatEngine.start). */
  | {
      type: 'start';
      id: number;
      request: Omit<StartRequest, 'signal' | 'onDelta' | 'onToolCall'> & { streamed: boolean };
    }
  /** The caller went away: stop that generation (it ends with `failed`, code `cancelled`). */
  | { type: 'abort'; id: number }
  /** Dispose of the model and exit. */
  | { type: 'close' };

export type FromLlamaWorker =
  | { type: 'ready'; contextWindow: number }
  /** The model did not load; the worker exits. */
  | { type: 'fatal'; message: string }
  | { type: 'measured'; id: number; measure: PromptMeasure }
  /** `generating: false`: the prompt left no room and the `start` ends here. */
  | { type: 'started'; id: number; measure: PromptMeasure; generating: boolean }
  | { type: 'delta'; id: number; text: string }
  /** A piece of a tool call of a streamed answer, in order with its text. */
  | { type: 'toolCall'; id: number; piece: ToolCallPiece }
  | { type: 'done'; id: number; result: GenerateResult }
  | { type: 'failed'; id: number; error: SerializedFailure };

/** A failure as it crosses threads: a ChatEngineError keeps its fields; anything else only its message. */
export type SerializedFailure =
  | {
      engineError: true;
      code: ChatEngineError['code'];
      message: string;
      tokens: number;
      started: boolean;
      param: string | null;
    }
  | { engineError: false; message: string };
