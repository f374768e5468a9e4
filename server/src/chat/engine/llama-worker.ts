// The worker thread of a llama model (see llama-worker-engine.ts): loads the GGUF given as workerData with the
// in-process llama engine, then measures and generates as asked. The answer's text goes back in messages at most
// every DELTA_BATCH_MS, each sent just after a token (delta-pacer.ts). Each message costs the model's pace: with the
// engine called without HTTP, messages every 2 ms gave a median of 0.963 × the pace of the engine on the caller's
// thread (8 runs), every 10 ms 0.985 (3 runs), only the first and the last 1.005 (5 runs). 10 ms is also the
// stream's shortest interval between two deltas (chat-service.ts): text waits here about as long as it would there,
// and a message that comes a little early waits at most the stream's 2 ms grace.
import { parentPort, workerData } from 'node:worker_threads';
import { createDeltaPacer } from '../delta-pacer.ts';
import { ChatEngineError } from './engine.ts';
import { createLlamaEngine, type LlamaEngineOptions } from './llama-engine.ts';
import type { FromLlamaWorker, SerializedFailure, ToLlamaWorker } from './llama-worker-protocol.ts';

const DELTA_BATCH_MS = 10;

const port = parentPort!;
const send = (message: FromLlamaWorker) => port.postMessage(message);

const serialized = (error: unknown): SerializedFailure =>
  error instanceof ChatEngineError
    ? { engineError: true, code: error.code, message: error.message, tokens: error.tokens, started: error.started }
    : { engineError: false, message: (error as Error).message };

try {
  const engine = await createLlamaEngine(workerData as LlamaEngineOptions);
  const running = new Map<number, AbortController>();
  const finished = new Set<Promise<void>>();

  /** Runs a `start`: its measure goes back before the answer, whose text is streamed. */
  async function start(id: number, request: Extract<ToLlamaWorker, { type: 'start' }>['request']) {
    const controller = new AbortController();
    running.set(id, controller);
    const pacer = createDeltaPacer({ intervalMs: DELTA_BATCH_MS, graceMs: 2 });
    pacer.start((text) => send({ type: 'delta', id, text }));
    try {
      const started = await engine.start({ ...request, signal: controller.signal, onDelta: pacer.add });
      send({ type: 'started', id, measure: started.measure, generating: started.answer !== undefined });
      if (!started.answer) return;
      const result = await started.answer;
      pacer.flush();
      send({ type: 'done', id, result });
    } catch (error) {
      pacer.flush();
      send({ type: 'failed', id, error: serialized(error) });
    } finally {
      pacer.stop();
      running.delete(id);
    }
  }

  port.on('message', (message: ToLlamaWorker) => {
    switch (message.type) {
      case 'measure':
        engine.measure(message.messages, message.format).then(
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
