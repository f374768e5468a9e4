// The AsyncAPI stream protocol as a typed connection: a ticket from POST /v3/transcriptions/stream/create, the
// WebSocket, the `session` frame and its `session.started` answer; then binary PCM in, and partial and final results
// out as an async iterator, ending cleanly with `end` → `session.completed` → close 1000. Works with the browser's
// WebSocket and with the `ws` package in Node (pass its constructor: Node 20 has no global WebSocket).
import type { Client } from '../../generated/client/client/index.ts';
import { createStreamSession } from '../../generated/client/sdk.gen.ts';
import type {
  StreamAppliedConfig,
  StreamErrorFrame,
  StreamSessionCompleted,
  StreamSessionConfig,
  StreamSessionStarted,
  StreamTranscriptFinal,
  StreamTranscriptPartial,
} from '../../generated/client/types.gen.ts';
import { ScribeApiError } from './api-error.ts';

export type StreamServerFrame =
  StreamSessionStarted | StreamTranscriptPartial | StreamTranscriptFinal | StreamSessionCompleted | StreamErrorFrame;

/** What the iterator yields: the running partial and each final result. */
export type StreamResult = StreamTranscriptPartial | StreamTranscriptFinal;

/** The part of a WebSocket the connection uses (the browser's, Node 22's and the `ws` package's all fit). */
export interface WebSocketLike {
  binaryType: string;
  readonly readyState: number;
  send(data: string | ArrayBuffer | Uint8Array): void;
  close(code?: number, reason?: string): void;
  addEventListener(type: 'message', listener: (event: { data: unknown }) => void): void;
  addEventListener(type: 'close', listener: (event: { code: number; reason: string }) => void): void;
  addEventListener(type: 'open' | 'error', listener: () => void): void;
}

export type WebSocketConstructor = new (url: string) => WebSocketLike;

export interface ConnectStreamOptions {
  /** The session frame's settings (`type` is added); the server echoes what it applied in `config`. */
  session?: Omit<StreamSessionConfig, 'type'>;
  /** The WebSocket class (default: the global one; in Node 20 pass `WebSocket` from the `ws` package). */
  WebSocket?: WebSocketConstructor;
}

export interface StreamClose {
  code: number;
  reason: string;
}

export class StreamError extends Error {
  override readonly name = 'StreamError';

  constructor(
    readonly close: StreamClose,
    /** The `error` frame the server sent before closing, when it sent one. */
    readonly frame: StreamErrorFrame | undefined,
  ) {
    super(
      frame
        ? `${frame.error.code}: ${frame.error.message} (close ${close.code})`
        : `the stream closed with ${close.code}${close.reason ? ` ${close.reason}` : ''}`,
    );
  }
}

export interface StreamConnection extends AsyncIterable<StreamResult> {
  readonly sessionId: string;
  /** The configuration the server applied (from `session.started`). */
  readonly config: StreamAppliedConfig;
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

const OPEN = 1;

function textOf(data: unknown): string | undefined {
  if (typeof data === 'string') return data;
  // `ws` may hand text over as a Buffer when the listener gets raw data.
  if (data instanceof Uint8Array) return new TextDecoder().decode(data);
  return undefined;
}

/** Opens a stream session on the server the client points at and resolves once the session has started. */
export async function connectStream(client: Client, options: ConnectStreamOptions = {}): Promise<StreamConnection> {
  const Socket = options.WebSocket ?? (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
  if (!Socket) throw new Error('no WebSocket here: pass options.WebSocket (in Node 20, the ws package)');
  const { data: ticket, error, response } = await createStreamSession({ client });
  if (!ticket) throw ScribeApiError.from(response, error);

  const ws = new Socket(ticket.stream_url);
  ws.binaryType = 'arraybuffer';
  const results: StreamResult[] = [];
  let wake: (() => void) | undefined;
  let errorFrame: StreamErrorFrame | undefined;
  let completed: StreamSessionCompleted | undefined;
  let closedWith: StreamClose | undefined;
  let onStarted: ((frame: StreamSessionStarted) => void) | undefined;
  const closed = new Promise<StreamClose>((resolve) =>
    ws.addEventListener('close', (event) => {
      closedWith = { code: event.code, reason: event.reason };
      resolve(closedWith);
      wake?.();
    }),
  );
  ws.addEventListener('message', (event) => {
    const text = textOf(event.data);
    if (text === undefined) return; // the protocol sends no binary frames to the client
    const frame = JSON.parse(text) as StreamServerFrame;
    if (frame.type === 'session.started') onStarted?.(frame);
    else if (frame.type === 'transcript.partial' || frame.type === 'transcript.final') results.push(frame);
    else if (frame.type === 'session.completed') completed = frame;
    else if (frame.type === 'error') errorFrame = frame;
    wake?.();
  });
  ws.addEventListener('error', () => undefined); // reported through the close

  const started = await new Promise<StreamSessionStarted>((resolve, reject) => {
    onStarted = resolve;
    ws.addEventListener('open', () => ws.send(JSON.stringify({ ...options.session, type: 'session' })));
    void closed.then((close) => reject(new StreamError(close, errorFrame)));
  });
  const failure = (close: StreamClose) => (close.code === 1000 ? undefined : new StreamError(close, errorFrame));
  const sendText = (frame: object) => {
    if (ws.readyState === OPEN) ws.send(JSON.stringify(frame));
  };

  return {
    sessionId: started.session_id,
    config: started.config,
    sendAudio(chunk) {
      if (ws.readyState === OPEN) ws.send(chunk);
    },
    keepalive: () => sendText({ type: 'keepalive' }),
    finalize: () => sendText({ type: 'finalize' }),
    async end() {
      sendText({ type: 'end' });
      const close = await closed;
      const error = failure(close);
      if (error) throw error;
      if (!completed) throw new StreamError(close, errorFrame);
      return completed;
    },
    close: () => ws.close(1000),
    closed,
    async *[Symbol.asyncIterator]() {
      for (;;) {
        const next = results.shift();
        if (next) {
          yield next;
          continue;
        }
        if (closedWith) {
          const error = failure(closedWith);
          if (error) throw error;
          return;
        }
        await new Promise<void>((resolve) => (wake = resolve));
        wake = undefined;
      }
    },
  };
}
