// The stream protocol's shared pieces: the server's frames (types from the generated client), the part of a WebSocket
// the client uses, how a connection closed, and the error for a session that did not end normally.
import type {
  StreamErrorFrame,
  StreamSessionCompleted,
  StreamSessionStarted,
  StreamTranscriptFinal,
  StreamTranscriptPartial,
} from '../../generated/client/types.gen.ts';

export type StreamServerFrame =
  StreamSessionStarted | StreamTranscriptPartial | StreamTranscriptFinal | StreamSessionCompleted | StreamErrorFrame;

/** The part of a WebSocket the connection uses (the browser's, Node 22's and the `ws` package's all fit). */
export interface WebSocketLike {
  binaryType: string;
  readonly readyState: number;
  send(data: string | ArrayBuffer | Uint8Array): void;
  close(code?: number, reason?: string): void;
  addEventListener(type: 'message', listener: (event: { data: unknown }) => void): void;
  addEventListener(type: 'close', listener: (event: { code: number; reason: string }) => void): void;
  addEventListener(type: 'open' | 'error', listener: (event: unknown) => void): void;
}

export type WebSocketConstructor<S extends WebSocketLike = WebSocketLike> = new (url: string) => S;

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
    /** What was still awaited when the connection closed, for the message (`before a session.started frame`). */
    awaited?: string,
  ) {
    super(
      (frame
        ? `${frame.error.code}: ${frame.error.message} (close ${close.code})`
        : `the stream closed with ${close.code}${close.reason ? ` ${close.reason}` : ''}`) +
        (awaited ? ` ${awaited}` : ''),
    );
  }
}
