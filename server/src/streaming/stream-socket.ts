// The WebSocket class the stream server creates its connections with. `ws` closes a connection on its own when what
// the client sent breaks its limits or the protocol — 1009 for a message over `maxPayload` (decided from the frame's
// header, before any of its payload is buffered), 1002 for a protocol error, 1007 for text that is not UTF-8, 1008
// for too many fragments or buffered chunks — and the contract (StreamCloseCode) lists none of those codes. ws 8.23
// does it by calling the socket's own close(code) without a reason (receiverOnError), so this subclass hands such a
// close to the connection, which sends the contract's `error` frame and closes with 4400 instead. ws stops reading
// the socket before that call, so nothing more of the refused frame is buffered. A close the client started (ws echoes
// its close frame) passes the client's reason as a Buffer and goes through unchanged, as do the server's own closes.
import WebSocket from 'ws';

/** Why ws refused what the client sent. */
export type Refusal = 'too_large' | 'malformed';

const REFUSALS: Partial<Record<number, Refusal>> = {
  1002: 'malformed',
  1007: 'malformed',
  1008: 'malformed',
  1009: 'too_large',
};

export class StreamSocket extends WebSocket {
  /** Called once when ws refuses a frame; it is expected to send the error frame and close (4400 otherwise). */
  onRefused: ((refusal: Refusal) => void) | undefined;

  override close(code?: number, data?: string | Buffer): void {
    const refusal = code !== undefined && data === undefined ? REFUSALS[code] : undefined;
    if (refusal === undefined || this.readyState !== WebSocket.OPEN) return super.close(code, data);
    const hook = this.onRefused;
    this.onRefused = undefined;
    hook?.(refusal);
    if (this.readyState === WebSocket.OPEN) super.close(4400, refusal);
  }
}
