// The llama engine as the server runs it: the model lives on a worker thread (llama-worker.ts) and this side only
// passes requests and the answer's text. node-llama-cpp hands every token to the JavaScript thread that drives the
// model, which then starts the next evaluation; on the server's main thread that hand-off waited behind whatever else
// the thread was doing (a response's socket write, another request), and the token loop took a third of that thread
// while an answer was generated. On its own thread the loop waits for nothing else.
//  - A worker that stops (an uncaught error, an out-of-memory) fails what it was doing as `internal_error`; the next
//    request starts a new one. A crash inside llama.cpp itself takes the whole process down: threads share it.
//  - The worker is unref'd while nothing is asked of it, so an idle model does not keep a process alive.
import type { Worker } from 'node:worker_threads';
import { startWorker } from '../../workers/start-worker.ts';
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
  type ToolCallPiece,
  type ToolUse,
} from './engine.ts';
import type { LlamaEngineOptions } from './llama-engine.ts';
import type { FromLlamaWorker, SerializedFailure, ToLlamaWorker } from './llama-worker-protocol.ts';

interface Call {
  resolve(value: PromptMeasure | GenerateResult | undefined): void;
  reject(error: Error): void;
  onDelta?(text: string): void;
  onToolCall?(piece: ToolCallPiece): void;
  /** A `start`'s measure; when `generating`, the answer follows and settles the call. */
  onStarted?(measure: PromptMeasure, generating: boolean): void;
}

interface Running {
  worker: Worker;
  contextWindow: number;
}

const failureOf = (error: SerializedFailure): Error =>
  error.engineError
    ? new ChatEngineError(error.code, error.message, error.tokens, error.started, error.param)
    : new Error(error.message);

export interface LlamaWorkerEngine extends LocalChatEngine {
  /** The worker thread now serving the model (tests stop it to see a crash handled). */
  workerThread(): Promise<Worker>;
}

export async function createLlamaWorkerEngine(options: LlamaEngineOptions): Promise<LlamaWorkerEngine> {
  const calls = new Map<number, Call>();
  let nextId = 0;
  let current: Promise<Running> | undefined;
  let closed = false;

  const refWhileBusy = (worker: Worker) => (calls.size > 0 ? worker.ref() : worker.unref());

  /** Starts the worker and resolves once its model is loaded (rejects with the reason it did not load). */
  function start(): Promise<Running> {
    const worker = startWorker(new URL('./llama-worker.ts', import.meta.url), options);
    const running = new Promise<Running>((resolve, reject) => {
      worker.once('error', reject);
      worker.once('exit', (code) => reject(new Error(`the model's worker thread exited (code ${code}) while loading`)));
      const onFirst = (message: FromLlamaWorker) => {
        worker.off('message', onFirst);
        if (message.type === 'ready') resolve({ worker, contextWindow: message.contextWindow });
        else reject(new Error(message.type === 'fatal' ? message.message : `unexpected ${message.type}`));
      };
      worker.on('message', onFirst);
    });
    worker.on('message', (message: FromLlamaWorker) => {
      if (message.type === 'ready' || message.type === 'fatal') return;
      const call = calls.get(message.id);
      if (!call) return;
      if (message.type === 'delta') return call.onDelta?.(message.text);
      if (message.type === 'toolCall') return call.onToolCall?.(message.piece);
      if (message.type === 'started') {
        call.onStarted?.(message.measure, message.generating);
        if (message.generating) return;
      }
      calls.delete(message.id);
      refWhileBusy(worker);
      if (message.type === 'failed') call.reject(failureOf(message.error));
      else if (message.type === 'started') call.resolve(undefined);
      else call.resolve(message.type === 'measured' ? message.measure : message.result);
    });
    // A worker that stops fails what it had; the next call starts another (unless the engine was closed).
    let crash = '';
    worker.on('error', (error) => (crash = `: ${error.message}`));
    worker.on('exit', (code) => {
      if (current === running) current = undefined;
      for (const [id, call] of calls) {
        calls.delete(id);
        call.reject(
          new ChatEngineError('internal_error', `The model's worker thread stopped (exit code ${code})${crash}.`),
        );
      }
    });
    return running;
  }

  async function worker(): Promise<Worker> {
    if (closed) throw new ChatEngineError('engine_unavailable', 'The model has been closed.', 0, false);
    current ??= start();
    return (await current).worker;
  }

  async function ask<T extends PromptMeasure | GenerateResult | undefined>(
    message: (id: number) => ToLlamaWorker,
    listeners: Pick<Call, 'onDelta' | 'onToolCall' | 'onStarted'> = {},
  ): Promise<{ id: number; worker: Worker; result: Promise<T> }> {
    const target = await worker();
    const id = nextId++;
    const result = new Promise<T>((resolve, reject) => {
      calls.set(id, { resolve: resolve as Call['resolve'], reject, ...listeners });
    });
    refWhileBusy(target);
    target.postMessage(message(id));
    return { id, worker: target, result };
  }

  /** The answer of a generation in the worker; the caller's abort stops it there. */
  async function untilDone<T>(target: Worker, id: number, result: Promise<T>, signal: AbortSignal): Promise<T> {
    const abort = () => target.postMessage({ type: 'abort', id } satisfies ToLlamaWorker);
    signal.addEventListener('abort', abort, { once: true });
    try {
      return await result;
    } finally {
      signal.removeEventListener('abort', abort);
    }
  }

  /** LocalChatEngine.start: one `start` message; resolves with the measure once the worker sends `started`. */
  async function startAnswer({ signal, onDelta, onToolCall, ...request }: StartRequest): Promise<StartedAnswer> {
    if (signal.aborted) throw new ChatEngineError('cancelled', 'The client went away.', 0, false);
    let onStarted!: Call['onStarted'];
    const started = new Promise<{ measure: PromptMeasure; generating: boolean }>(
      (resolve) => (onStarted = (measure, generating) => resolve({ measure, generating })),
    );
    const {
      id,
      worker: target,
      result,
    } = await ask<GenerateResult | undefined>(
      (id) => ({ type: 'start', id, request: { ...request, streamed: onDelta !== undefined } }),
      { onDelta, onToolCall, onStarted },
    );
    const answer = untilDone(target, id, result, signal);
    // `started` comes before the answer; a failure before it (a schema that makes no grammar) is the start's.
    const { measure, generating } = await Promise.race([started, answer.then(() => started)]);
    return generating ? { measure, answer: answer as Promise<GenerateResult> } : { measure };
  }

  current = start();
  const first = await current;
  first.worker.unref();

  return {
    kind: 'llama',
    contextWindow: first.contextWindow,
    workerThread: worker,

    async measure(messages: PromptMessage[], format?: AnswerFormat, tools?: ToolUse): Promise<PromptMeasure> {
      const { result } = await ask<PromptMeasure>((id) => ({ type: 'measure', id, messages, format, tools }));
      return result;
    },

    start: startAnswer,

    // The request is already clamped to the room the prompt leaves (GenerateRequest.maxTokens), so the worker's own
    // measure finds that room again; its count of the prompt replaces the caller's.
    async generate({ promptTokens: _counted, ...request }: GenerateRequest): Promise<GenerateResult> {
      const { answer } = await startAnswer(request);
      if (!answer) {
        throw new ChatEngineError('context_length_exceeded', 'The prompt leaves no room for an answer.', 0, false);
      }
      return answer;
    },

    async close() {
      closed = true;
      const running = await current?.catch(() => undefined);
      if (!running) return;
      // The worker stops its generations, disposes of the model and exits. It is never terminated: terminating it
      // inside one of node-llama-cpp's native calls aborts the whole process. One that has not exited after 5 s is
      // only unref'd, so it does not keep the process alive.
      running.worker.ref();
      const exited = new Promise<void>((resolve) => running.worker.once('exit', () => resolve()));
      running.worker.postMessage({ type: 'close' } satisfies ToLlamaWorker);
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, 5000)));
      await Promise.race([exited, late]);
      clearTimeout(timer);
      running.worker.unref();
    },
  };
}
