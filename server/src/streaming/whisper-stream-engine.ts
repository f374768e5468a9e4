// Streaming on the Whisper engine (when SCRIBE_WHISPER_MODEL is set): each session is a WhisperSession on the main
// thread — resampling, the rolling buffer and the agreement are cheap — whose window decodes run in the transcription
// engine's model processes, ahead of the queued file jobs. The engine and its processes belong to the transcription
// pipeline: closing this stream engine ends its sessions, not the processes.
import type { WhisperEngine } from '../transcriptions/engine/whisper/engine.ts';
import type { StreamChannel, StreamEngine } from './stream-engine.ts';
import { WhisperSession, type WindowDecoder } from './whisper-session.ts';

export interface WhisperStreamOptions {
  /** Seconds of new audio between decodes (see WhisperSession). */
  step?: number;
}

export function createWhisperStreamEngine(engine: WhisperEngine, options: WhisperStreamOptions = {}): StreamEngine {
  const sessions = new Set<WhisperSession>();
  let closed = false;
  const decode: WindowDecoder = async (pcm, language, prompt) => {
    const result = await engine.decodeWindow({ pcm, language, ...(prompt ? { prompt } : {}) });
    return { words: result.words, language: result.language ?? language };
  };
  return {
    available: true,
    supports: (language) => engine.supports(language),
    unsupportedLanguage: (language) =>
      `The streaming engine (${engine.id}) does not recognise language "${language}"; it takes the languages ` +
      `GET /v3/models lists for service-transcribe${engine.detectsLanguage ? ', and auto' : ''}.`,
    async open(_id, sessionOptions, handlers): Promise<StreamChannel> {
      if (closed) throw new Error('the stream engine is closed');
      const session = new WhisperSession(
        { ...sessionOptions, ...(options.step ? { step: options.step } : {}) },
        decode,
        {
          onEvents: (events) => handlers.onEvents(events),
          onFailure: (message) => {
            sessions.delete(session);
            handlers.onFailure(message);
          },
        },
      );
      sessions.add(session);
      return {
        push: (pcm) => session.push(new Int16Array(pcm.buffer.slice(pcm.byteOffset, pcm.byteOffset + pcm.length))),
        finalize: () => session.finalize(),
        end: async () => {
          await session.end();
          session.close();
          sessions.delete(session);
        },
        close() {
          session.close();
          sessions.delete(session);
        },
        get pendingBytes() {
          return session.pendingBytes;
        },
        get busy() {
          return session.busy;
        },
      };
    },
    workers: () => [],
    async close() {
      closed = true;
      for (const session of sessions) session.close();
      sessions.clear();
    },
  };
}

/** Streaming when the configured engine cannot run (a Whisper model file that failed its check): create answers 503. */
export function unavailableStreamEngine(reason: string): StreamEngine {
  return {
    available: false,
    unavailable: reason,
    supports: () => false,
    unsupportedLanguage: () => `The streaming engine is not available: ${reason}`,
    open: () => Promise.reject(new Error(`the stream engine is not available: ${reason}`)),
    workers: () => [],
    close: () => Promise.resolve(),
  };
}
