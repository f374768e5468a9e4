// The AsyncAPI stream protocol as a typed connection: a ticket from POST /v3/transcriptions/stream/create, the
// WebSocket, the `session` frame and its `session.started` answer; then binary PCM in, and partial and final results
// out as an async iterator, ending cleanly with `end` → `session.completed` → close 1000. Works with the browser's
// WebSocket and with the `ws` package in Node (pass its constructor: Node 20 has no global WebSocket).
import type { Client } from '../../generated/client/client/index.ts';
import { createStreamSession } from '../../generated/client/sdk.gen.ts';
import type {
  StreamAppliedConfig,
  StreamSessionCompleted,
  StreamSessionConfig,
  StreamTranscriptFinal,
  StreamTranscriptPartial,
} from '../../generated/client/types.gen.ts';
import { ScribeApiError } from './api-error.ts';
import { openStreamSocket, type StreamSocket, type StreamSocketOptions } from './stream-socket.ts';
import { StreamError, type StreamClose } from './stream-types.ts';

export {
  StreamError,
  type StreamClose,
  type StreamServerFrame,
  type WebSocketConstructor,
  type WebSocketLike,
} from './stream-types.ts';

/** What the iterator yields: the running partial and each final result. */
export type StreamResult = StreamTranscriptPartial | StreamTranscriptFinal;

export interface ConnectStreamOptions extends StreamSocketOptions {
  /** The session frame's settings (`type` is added); the server echoes what it applied in `config`. */
  session?: Omit<StreamSessionConfig, 'type'>;
}

export interface StreamConnection extends AsyncIterable<StreamResult> {
  readonly sessionId: string;
  /** The configuration the server applied (from `session.started`). */
  readonly config: StreamAppliedConfig;
  /** The connection frame by frame: every frame received, raw sends, a close code of one's own. */
  readonly socket: StreamSocket;
  /** Whether the connection is still open (audio sent after it closed is dropped). */
  readonly isOpen: boolean;
  /** Sends PCM audio (s16le mono at `config.sample_rate`). */
  sendAudio(chunk: ArrayBuffer | Uint8Array): void;
  keepalive(): void;
  /** Asks for a final result of what was sent so far. */
  finalize(): void;
  /** Ends the session: resolves with `session.completed` after the normal close, rejects with StreamError otherwise. */
  end(): Promise<StreamSessionCompleted>;
  /** Closes (1000) without `end`: the session ends without its last final, charged for the audio recognised so far. */
  close(): void;
  readonly closed: Promise<StreamClose>;
}

/** Opens a stream session on the server the client points at and resolves once the session has started. */
export async function connectStream(client: Client, options: ConnectStreamOptions = {}): Promise<StreamConnection> {
  const { session, ...socketOptions } = options;
  if (!(socketOptions.WebSocket ?? (globalThis as { WebSocket?: unknown }).WebSocket))
    throw new Error('no WebSocket here: pass options.WebSocket (in Node 20, the ws package)');
  const { data: ticket, error, response } = await createStreamSession({ client });
  if (!ticket) throw ScribeApiError.from(response, error);

  let wake: (() => void) | undefined;
  const socket = await openStreamSocket(ticket.stream_url, {
    ...socketOptions,
    onFrame(frame) {
      socketOptions.onFrame?.(frame);
      wake?.();
    },
  });
  socket.sendFrame({ ...session, type: 'session' });
  const started = await socket.next('session.started');

  // One cursor for the connection: each result is yielded once, however many loops iterate it.
  let read = 0;
  const nextResult = (): StreamResult | undefined => {
    for (; read < socket.frames.length; read++) {
      const frame = socket.frames[read]!;
      if (frame.type === 'transcript.partial' || frame.type === 'transcript.final') {
        read++;
        return frame;
      }
    }
    return undefined;
  };
  let closedWith: StreamClose | undefined;
  void socket.closed.then((close) => {
    closedWith = close;
    wake?.();
  });

  return {
    sessionId: started.session_id,
    config: started.config,
    socket,
    get isOpen() {
      return socket.isOpen;
    },
    sendAudio: (chunk) => socket.sendAudio(chunk),
    keepalive: () => socket.sendFrame({ type: 'keepalive' }),
    finalize: () => socket.sendFrame({ type: 'finalize' }),
    end: () => socket.end(),
    close: () => socket.close(1000),
    closed: socket.closed,
    async *[Symbol.asyncIterator]() {
      for (;;) {
        const next = nextResult();
        if (next) {
          yield next;
          continue;
        }
        if (closedWith) {
          if (closedWith.code !== 1000) throw new StreamError(closedWith, socket.of('error').at(-1));
          return;
        }
        await new Promise<void>((resolve) => (wake = resolve));
        wake = undefined;
      }
    },
  };
}
