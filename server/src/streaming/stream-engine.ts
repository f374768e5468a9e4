// The main thread's side of streaming recognition: a few stream worker threads (stream-worker.ts; default one per
// core), started on the first session, each hosting many sessions. A session goes to the worker with the fewest
// sessions and stays there (its decoder state lives in that thread). Decoding never runs on the event loop: the
// connection only copies audio bytes into a message (transferred, not cloned) and forwards the results that come back.
// A worker that dies fails its sessions (the connection closes them with 1011) and is replaced for the next session.
import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import { startWorker } from '../workers/start-worker.ts';
import { primaryLanguage } from '../transcriptions/engine/engine.ts';
import { modelPaths, pocketSphinxProblem } from '../transcriptions/engine/pocketsphinx/engine.ts';
import type { RecognizerEvent, RecognizerOptions } from './recognizer.ts';
import type { FromStreamWorker, StreamWorkerData, ToStreamWorker } from './stream-worker.ts';

export interface StreamHandlers {
  onEvents(events: RecognizerEvent[]): void;
  /** The worker failed or died: the session cannot go on. */
  onFailure(message: string): void;
}

export interface StreamChannel {
  /** Whole samples of pcm_s16le at the session's rate. */
  push(pcm: Buffer): void;
  finalize(): void;
  /** Resolves after the last results of the session were handed to onEvents. */
  end(): Promise<void>;
  /** Drops the session (results in flight are discarded). */
  close(): void;
  /** Audio bytes sent to the worker and not processed yet. */
  readonly pendingBytes: number;
  /** Whether the worker still has audio, a finalize or the end of this session to process. */
  readonly busy: boolean;
}

/** A session's settings: the recognizer's, and the session's language (PocketSphinx has one: English). */
export interface StreamOpenOptions extends RecognizerOptions {
  language: string;
}

export interface StreamEngine {
  readonly available: boolean;
  /** Why streaming cannot run here and how to fix it (the transcription engine's reason); absent when it can. */
  readonly unavailable?: string;
  supports(language: string): boolean;
  /** The `unsupported_language` message for a session asking for `language`. */
  unsupportedLanguage(language: string): string;
  open(id: string, options: StreamOpenOptions, handlers: StreamHandlers): Promise<StreamChannel>;
  /** The live worker threads (for tests that simulate a crash by terminating one, and diagnostics). */
  workers(): Worker[];
  close(): Promise<void>;
}

interface Session {
  handlers: StreamHandlers;
  pending: number;
  /** Messages sent that the worker has not answered yet. */
  unanswered: number;
  ended?: () => void;
}

interface Slot {
  worker: Worker;
  ready: Promise<void>;
  sessions: Map<string, Session>;
  dead: boolean;
}

export interface StreamEngineOptions {
  workers?: number;
  modelDir?: string;
  /** See PocketSphinxFiles.library. */
  library?: string | undefined;
}

/** PocketSphinx streaming when it is installed; otherwise an engine that is not available (503 at create). */
export function createStreamEngine(options: StreamEngineOptions = {}): StreamEngine {
  const model = modelPaths(options.modelDir, options.library);
  // Loads the library on the main thread first when it is there: that silences its process-wide log.
  const problem = pocketSphinxProblem(model);
  const available = problem === undefined;
  const size = options.workers ?? availableParallelism();
  const slots: (Slot | undefined)[] = new Array<Slot | undefined>(size).fill(undefined);
  let closed = false;

  function spawn(index: number): Slot {
    const worker = startWorker(new URL('./stream-worker.ts', import.meta.url), { model } satisfies StreamWorkerData);
    worker.unref();
    const slot: Slot = { worker, sessions: new Map(), dead: false, ready: Promise.resolve() };
    slot.ready = new Promise<void>((resolve, reject) => {
      worker.on('message', (message: FromStreamWorker) => {
        if (message.type === 'ready') return resolve();
        if (message.type === 'fatal') return reject(new Error(`the stream worker failed to start: ${message.message}`));
        const session = slot.sessions.get(message.id);
        if (!session) return;
        if (message.type === 'failed') {
          slot.sessions.delete(message.id);
          session.handlers.onFailure(message.message);
          return;
        }
        session.pending -= message.bytes;
        session.unanswered -= 1;
        if (message.events.length > 0) session.handlers.onEvents(message.events);
        if (message.ended) {
          slot.sessions.delete(message.id);
          session.ended?.();
        }
      });
      worker.on('error', () => undefined); // the exit handler below reports it
      worker.on('exit', () => {
        slot.dead = true;
        if (slots[index] === slot) slots[index] = undefined;
        reject(new Error('the stream worker stopped'));
        for (const session of slot.sessions.values()) {
          session.handlers.onFailure('the stream worker stopped');
          session.ended?.(); // an `end` waiting for its answer has none coming
        }
        slot.sessions.clear();
      });
    });
    slot.ready.catch(() => undefined);
    return slot;
  }

  function pick(): Slot {
    let best = 0;
    for (let i = 0; i < size; i++) {
      if (!slots[i]) {
        best = i;
        break;
      }
      if (slots[i]!.sessions.size < slots[best]!.sessions.size) best = i;
    }
    return (slots[best] ??= spawn(best));
  }

  return {
    available,
    ...(problem ? { unavailable: problem.reason } : {}),
    supports: (language) => available && primaryLanguage(language) === 'en',
    unsupportedLanguage: (language) =>
      `The streaming engine recognises English only; language "${language}" is not supported.`,
    async open(id, recognizerOptions, handlers) {
      if (closed) throw new Error('the stream engine is closed');
      const slot = pick();
      const session: Session = { handlers, pending: 0, unanswered: 0 };
      slot.sessions.set(id, session);
      try {
        await slot.ready;
      } catch (error) {
        slot.sessions.delete(id);
        throw error;
      }
      const send = (message: ToStreamWorker, transfer?: ArrayBuffer[]) => {
        if (slot.dead) return;
        if (message.type === 'audio' || message.type === 'finalize' || message.type === 'end') session.unanswered += 1;
        slot.worker.postMessage(message, transfer);
      };
      send({ type: 'open', id, options: recognizerOptions });
      return {
        push(pcm) {
          // A copy the worker then owns (the Buffer may be a view into ws's pooled memory).
          const copy = new Uint8Array(pcm).buffer;
          session.pending += copy.byteLength;
          send({ type: 'audio', id, pcm: copy }, [copy]);
        },
        finalize: () => send({ type: 'finalize', id }),
        end: () =>
          new Promise<void>((resolve) => {
            if (!slot.sessions.has(id)) return resolve();
            session.ended = resolve;
            send({ type: 'end', id });
          }),
        close() {
          if (!slot.sessions.delete(id)) return;
          session.ended?.(); // an `end` waiting for its answer has none coming now
          send({ type: 'close', id });
        },
        get pendingBytes() {
          return session.pending;
        },
        get busy() {
          return session.unanswered > 0;
        },
      };
    },
    workers: () => slots.filter((slot): slot is Slot => slot !== undefined && !slot.dead).map((slot) => slot.worker),
    async close() {
      closed = true;
      await Promise.all(
        slots.map(async (slot) => {
          if (!slot || slot.dead) return;
          const exited = new Promise<void>((resolve) => slot.worker.once('exit', () => resolve()));
          slot.worker.postMessage({ type: 'shutdown' } satisfies ToStreamWorker);
          const timer = setTimeout(() => void slot.worker.terminate(), 5000);
          await exited;
          clearTimeout(timer);
        }),
      );
    },
  };
}
