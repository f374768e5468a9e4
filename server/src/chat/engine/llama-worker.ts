// The worker thread of a llama model (see llama-worker-engine.ts): loads the GGUF given as workerData with the
// in-process llama engine, then measures and generates as asked. A streamed answer's text goes back as the request
// paces it (GenerateRequest.deltaIntervalMs), one message per piece; an answer nobody streams sends none. Each
// message costs the model's pace: with the engine called without HTTP, messages every 2 ms gave a median of 0.963 ×
// the pace of the engine on the caller's thread (8 runs), every 10 ms 0.958–0.986 (7 runs), only the first and the
// last 1.005 (median of 5 runs; 1.019 and 1.024 in two more).
import { parentPort, workerData } from 'node:worker_threads';
import { ChatEngineError, type ToolCallPiece } from './engine.ts';
import { createLlamaEngine, type LlamaEngineOptions } from './llama-engine.ts';
import type { FromLlamaWorker, SerializedFailure, ToLlamaWorker } from './llama-worker-protocol.ts';

const port = parentPort!;
const send = (message: FromLlamaWorker) => port.postMessage(message);

const serialized = (error: unknown): SerializedFailure =>
  error instanceof ChatEngineError
    ? {
        engineError: true,
        code: error.code,
        message: error.message,
        tokens: error.tokens,
        started: error.started,
        param: error.param,
      }
    : { engineError: false, message: (error as Error).message };

try {
  const engine = await createLlamaEngine(workerData as LlamaEngineOptions);
  const running = new Map<number, AbortController>();
  const finished = new Set<Promise<void>>();

  /** Runs a `start`: its measure goes back before the answer, whose text is streamed. */
  async function start(id: number, request: Extract<ToLlamaWorker, { type: 'start' }>['request']) {
    const controller = new AbortController();
    running.set(id, controller);
    const { streamed, ...rest } = request;
    try {
      const started = await engine.start({
        ...rest,
        signal: controller.signal,
        ...(streamed
          ? {
              onDelta: (text: string) => send({ type: 'delta', id, text }),
              onToolCall: (piece: ToolCallPiece) => send({ type: 'toolCall', id, piece }),
            }
          : {}),
      });
      send({ type: 'started', id, measure: started.measure, generating: started.answer !== undefined });
      if (!started.answer) return;
      send({ type: 'done', id, result: await started.answer });
    } catch (error) {
      send({ type: 'failed', id, error: serialized(error) });
    } finally {
      running.delete(id);
    }
  }

  port.on('message', (message: ToLlamaWorker) => {
    switch (message.type) {
      case 'measure':
        engine.measure(message.messages, message.format, message.tools).then(
          (measure) => send({ type: 'measured', id: message.id, measure }),
          (error: unknown) => send({ type: 'failed', id: message.id, error: serialized(error) }),
        );
        break;
      case 'start': {
        const done = start(message.id, message.request);
        finished.add(done);
        void done.finally(() => finished.delete(done));
        break;
      }
      case 'abort':
        running.get(message.id)?.abort();
        break;
      case 'close':
        // The model is disposed of once every generation has stopped (each releases its sequence first).
        for (const controller of running.values()) controller.abort();
        void Promise.allSettled(finished)
          .then(() => engine.close())
          .finally(() => port.close());
        break;
    }
  });
  send({ type: 'ready', contextWindow: engine.contextWindow! });
} catch (error) {
  send({ type: 'fatal', message: (error as Error).message });
  port.close();
}
