// The stream protocol's WebSocket one frame at a time, under connectStream: opens a `stream_url`, keeps every frame
// the server sends in order, waits for a frame by type, sends JSON frames, raw text and PCM, and reports how the
// connection closed (code and reason). connectStream builds the session on it; a program that needs the wire itself
// (a latency benchmark, a test of the server's answers to bad frames, a close code of its own) uses it directly.
import type { StreamErrorFrame, StreamSessionCompleted } from '../../generated/client/types.gen.ts';
import {
  StreamError,
  type StreamClose,
  type StreamServerFrame,
  type WebSocketConstructor,
  type WebSocketLike,
} from './stream-types.ts';

export interface StreamSocketOptions<S extends WebSocketLike = WebSocketLike> {
  /** The WebSocket class (default: the global one; in Node 20 pass `WebSocket` from the `ws` package). */
  WebSocket?: WebSocketConstructor<S>;
  /** Called with every message the server sends, as received (text as a string, binary as an ArrayBuffer). */
  onServerMessage?: (data: string | ArrayBuffer) => void;
  /** Called with every frame as it arrives, before anyone waiting for it is woken (to time arrivals). */
  onFrame?: (frame: StreamServerFrame) => void;
  /** How long `next` waits by default, in milliseconds (default: until the frame comes or the connection closes). */
  frameTimeoutMs?: number;
}

type FrameOf<T extends StreamServerFrame['type']> = Extract<StreamServerFrame, { type: T }>;

export interface StreamSocket<S extends WebSocketLike = WebSocketLike> {
  /** Every frame the server sent so far, in order (a message that is not a JSON frame with a `type` is left out). */
  readonly frames: readonly StreamServerFrame[];
  /** The underlying WebSocket (for what only its own class can do, such as `terminate()` in the `ws` package). */
  readonly webSocket: S;
  readonly isOpen: boolean;
  /**
   * The first frame of `type` at index `from` (default 0) of `frames` or later, waiting for it. Rejects with
   * StreamError when the connection closes first, and with an Error after `timeoutMs`.
   */
  next<T extends StreamServerFrame['type']>(
    type: T,
    options?: { from?: number; timeoutMs?: number },
  ): Promise<FrameOf<T>>;
  /** The frames of one type received so far. */
  of<T extends StreamServerFrame['type']>(type: T): FrameOf<T>[];
  /** Sends a client frame as JSON text. */
  sendFrame(frame: object): void;
  /** Sends text exactly as given (the protocol wants JSON: anything else is an invalid frame). */
  sendText(text: string): void;
  /** Sends PCM audio as a binary frame. */
  sendAudio(chunk: ArrayBuffer | Uint8Array): void;
  /** Sends `end` and resolves with `session.completed` after the normal close (1000); rejects with StreamError. */
  end(): Promise<StreamSessionCompleted>;
  /** Closes with `code` (default 1000) and `reason`. */
  close(code?: number, reason?: string): void;
  /** How the connection closed (1006 when it was lost without a closing handshake). */
  readonly closed: Promise<StreamClose>;
}

const OPEN = 1;

function textOf(data: unknown): string | ArrayBuffer | undefined {
  if (typeof data === 'string' || data instanceof ArrayBuffer) return data;
  // `ws` may hand text over as a Buffer when the listener gets raw data.
  if (data instanceof Uint8Array) return new TextDecoder().decode(data);
  return undefined;
}

function frameOf(text: string): StreamServerFrame | undefined {
  try {
    const frame = JSON.parse(text) as unknown;
    if (frame && typeof frame === 'object' && typeof (frame as { type?: unknown }).type === 'string')
      return frame as StreamServerFrame;
  } catch {
    // not JSON: not a frame of the protocol (onServerMessage still saw it)
  }
  return undefined;
}

/** Connects to a `stream_url` and resolves once the WebSocket is open; rejects with StreamError when it cannot. */
export function openStreamSocket<S extends WebSocketLike = WebSocketLike>(
  url: string,
  options: StreamSocketOptions<S> = {},
): Promise<StreamSocket<S>> {
  const Socket = options.WebSocket ?? (globalThis as unknown as { WebSocket?: WebSocketConstructor<S> }).WebSocket;
  if (!Socket) throw new Error('no WebSocket here: pass options.WebSocket (in Node 20, the ws package)');
  const ws = new Socket(url);
  ws.binaryType = 'arraybuffer';
  const frames: StreamServerFrame[] = [];
  const waiters = new Set<() => void>();
  const wake = () => waiters.forEach((waiter) => waiter());
  let closedWith: StreamClose | undefined;
  let failure: string | undefined;
  const closed = new Promise<StreamClose>((resolve) =>
    ws.addEventListener('close', (event) => {
      // A refused upgrade closes with 1006 and no reason; the error event before it said why (in Node's `ws`).
      closedWith = { code: event.code, reason: event.reason || failure || '' };
      resolve(closedWith);
      wake();
    }),
  );
  ws.addEventListener('message', (event) => {
    const data = textOf(event.data);
    if (data === undefined) return;
    options.onServerMessage?.(data);
    const frame = typeof data === 'string' ? frameOf(data) : undefined; // the protocol sends no binary frames
    if (!frame) return;
    frames.push(frame);
    options.onFrame?.(frame);
    wake();
  });
  ws.addEventListener('error', (event) => {
    failure = (event as { message?: string } | undefined)?.message; // reported through the close
  });

  const lastError = () => frames.findLast((frame): frame is StreamErrorFrame => frame.type === 'error');
  const ifOpen = (send: () => void) => {
    if (ws.readyState === OPEN) send();
  };

  const socket: StreamSocket<S> = {
    frames,
    webSocket: ws,
    get isOpen() {
      return ws.readyState === OPEN;
    },
    next<T extends StreamServerFrame['type']>(
      type: T,
      { from = 0, timeoutMs = options.frameTimeoutMs }: { from?: number; timeoutMs?: number } = {},
    ) {
      return new Promise<FrameOf<T>>((resolve, reject) => {
        let timer: ReturnType<typeof setTimeout> | undefined;
        const check = () => {
          const found = frames.slice(from).find((frame): frame is FrameOf<T> => frame.type === type);
          if (!found && !closedWith) return;
          waiters.delete(check);
          clearTimeout(timer);
          if (found) resolve(found);
          else reject(new StreamError(closedWith!, lastError(), `before a ${type} frame`));
        };
        waiters.add(check);
        if (timeoutMs !== undefined && Number.isFinite(timeoutMs))
          timer = setTimeout(() => {
            waiters.delete(check);
            const got = frames.map((frame) => frame.type).join(', ') || 'none';
            reject(new Error(`no ${type} frame within ${timeoutMs} ms (got ${got})`));
          }, timeoutMs);
        check();
      });
    },
    of: <T extends StreamServerFrame['type']>(type: T) =>
      frames.filter((frame): frame is FrameOf<T> => frame.type === type),
    sendFrame: (frame) => ifOpen(() => ws.send(JSON.stringify(frame))),
    sendText: (text) => ifOpen(() => ws.send(text)),
    sendAudio: (chunk) => ifOpen(() => ws.send(chunk)),
    async end() {
      socket.sendFrame({ type: 'end' });
      const close = await closed;
      const completed = frames.findLast((frame): frame is StreamSessionCompleted => frame.type === 'session.completed');
      if (close.code !== 1000 || !completed) throw new StreamError(close, lastError());
      return completed;
    },
    close: (code = 1000, reason) => ws.close(code, reason),
    closed,
  };

  return new Promise((resolve, reject) => {
    ws.addEventListener('open', () => resolve(socket));
    void closed.then((close) => reject(new StreamError(close, lastError())));
  });
}
