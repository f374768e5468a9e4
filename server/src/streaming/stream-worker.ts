// Stream worker thread: hosts the recognizers of many stream sessions at once, each with its own streaming decoder
// (a decoder holds one session's utterance state; it is not shared). Messages are handled in arrival order, so one
// session's audio, finalize and end are processed in the order the client sent them. Decoders are kept after a
// session ends and reused by the next one (creating one loads the model: ≈ 0.4 s that would stall every session of
// this thread), with the cepstral mean normalisation of a new decoder (stream-decoder.ts: resetCmn), so a session
// decodes its audio the same whichever decoder it gets; one spare is created ahead, in an idle moment, whenever none is
// left.
import { parentPort, workerData } from 'node:worker_threads';
import type { ModelPaths } from '../transcriptions/engine/pocketsphinx/binding.ts';
import { Recognizer, type RecognizerEvent, type RecognizerOptions } from './recognizer.ts';
import { StreamDecoder } from './stream-decoder.ts';

export interface StreamWorkerData {
  model: ModelPaths;
}

export type ToStreamWorker =
  | { type: 'open'; id: string; options: RecognizerOptions }
  /** Whole samples of pcm_s16le at the session's rate. */
  | { type: 'audio'; id: string; pcm: ArrayBuffer }
  | { type: 'finalize'; id: string }
  | { type: 'end'; id: string }
  | { type: 'close'; id: string }
  | { type: 'shutdown' };

export type FromStreamWorker =
  | { type: 'ready' }
  | { type: 'fatal'; message: string }
  /** `bytes`: audio bytes this message acknowledges; `ended`: the answer to `end` (nothing follows). */
  | { type: 'events'; id: string; events: RecognizerEvent[]; bytes: number; ended?: boolean }
  | { type: 'failed'; id: string; message: string };

const port = parentPort!;
const { model } = workerData as StreamWorkerData;
const post = (message: FromStreamWorker) => port.postMessage(message);
const sessions = new Map<string, { recognizer: Recognizer; decoder: StreamDecoder }>();
const spare: StreamDecoder[] = [];
let warming: NodeJS.Timeout | undefined;
let stopped = false;

function warmSpare(): void {
  if (warming || spare.length > 0 || stopped) return;
  warming = setTimeout(() => {
    warming = undefined;
    if (spare.length === 0 && !stopped) {
      try {
        spare.push(StreamDecoder.create(model));
      } catch {
        // The next open reports the failure to its session.
      }
    }
  }, 50);
}

function release(id: string): void {
  const session = sessions.get(id);
  if (!session) return;
  sessions.delete(id);
  try {
    if (session.decoder.active) session.decoder.finish();
    if (!session.decoder.resettable) throw new Error('not reusable');
    session.decoder.resetCmn();
    spare.push(session.decoder);
  } catch {
    session.decoder.free();
  }
}

function handle(message: ToStreamWorker): void {
  if (message.type === 'shutdown') {
    stopped = true;
    clearTimeout(warming);
    for (const id of [...sessions.keys()]) release(id);
    for (const decoder of spare.splice(0)) decoder.free();
    port.close();
    return;
  }
  const { id } = message;
  try {
    if (message.type === 'open') {
      const decoder = spare.pop() ?? StreamDecoder.create(model);
      sessions.set(id, { decoder, recognizer: new Recognizer(decoder, message.options) });
      warmSpare();
      return;
    }
    if (message.type === 'close') return release(id);
    const session = sessions.get(id);
    if (!session) return; // closed meanwhile: what was in flight for it is dropped
    if (message.type === 'audio') {
      const pcm = new Int16Array(message.pcm, 0, message.pcm.byteLength >> 1);
      post({ type: 'events', id, events: session.recognizer.push(pcm), bytes: message.pcm.byteLength });
    } else if (message.type === 'finalize') {
      post({ type: 'events', id, events: session.recognizer.finalize(), bytes: 0 });
    } else if (message.type === 'end') {
      const events = session.recognizer.end();
      release(id);
      post({ type: 'events', id, events, bytes: 0, ended: true });
    }
  } catch (error) {
    // A decoder that failed is not trusted again: freed, not reused.
    const failed = sessions.get(id);
    sessions.delete(id);
    try {
      failed?.decoder.free();
    } catch {
      // nothing more to do for it
    }
    post({ type: 'failed', id, message: error instanceof Error ? error.message : String(error) });
  }
}

try {
  spare.push(StreamDecoder.create(model));
  port.on('message', handle);
  post({ type: 'ready' });
} catch (error) {
  post({ type: 'fatal', message: error instanceof Error ? error.message : String(error) });
  port.close();
}
