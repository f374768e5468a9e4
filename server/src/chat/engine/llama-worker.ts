// The worker thread of a llama model (see llama-worker-engine.ts): loads the GGUF given as workerData with the
// in-process llama engine, then measures and generates as asked. The answer's text goes back in messages at most
// every DELTA_BATCH_MS, each written just after a token (delta-pacer.ts): one message per token would cost this
// thread, which the model waits on between tokens, a postMessage per token.
import { parentPort, workerData } from 'node:worker_threads';
import { createDeltaPacer } from '../delta-pacer.ts';
import { ChatEngineError } from './engine.ts';
import { createLlamaEngine, type LlamaEngineOptions } from './llama-engine.ts';
import type { FromLlamaWorker, SerializedFailure, ToLlamaWorker } from './llama-worker-protocol.ts';

const DELTA_BATCH_MS = 2;

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

  async function generate(id: number, request: Extract<ToLlamaWorker, { type: 'generate' }>['request']) {
    const controller = new AbortController();
    running.set(id, controller);
    const pacer = createDeltaPacer({ intervalMs: DELTA_BATCH_MS, graceMs: 1 });
    pacer.start((text) => send({ type: 'delta', id, text }));
    try {
      const result = await engine.generate({ ...request, signal: controller.signal, onDelta: pacer.add });
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
      case 'generate': {
        const done = generate(message.id, message.request);
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
