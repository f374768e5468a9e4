// The tests' and benchmarks' stream connections: scribe-client's own stream socket (real `ws` WebSocket), with every
// server message checked against the AsyncAPI document on the way in — a message that is not JSON text, has an
// unknown `type` or breaks its message schema is a violation, and so is a close code not in the document's list
// (1006, a connection lost without a close frame, is no code the server sends). `violations` should stay empty.
import WebSocket from 'ws';
import { connectStream, type ConnectStreamOptions, type StreamConnection } from '../../../client/src/connect-stream.ts';
import { openStreamSocket, type StreamSocket } from '../../../client/src/stream-socket.ts';
import type { Client } from '../../../generated/client/client/index.ts';
import { documentedCloseCodes, messageValidator } from '../streaming/stream-messages.ts';

const SERVER_MESSAGES = ['session.started', 'transcript.partial', 'transcript.final', 'session.completed', 'error'];

/**
 * How long a test waits for a frame: a process's first session also starts its stream worker, and two loaded CI
 * runs, test files 5 × slower than alone, saw no `session.started` within 15 s.
 */
export const FRAME_TIMEOUT_MS = 60_000;

/** Checks server messages and the close code against the AsyncAPI document, collecting what breaks it. */
export class StreamWireCheck {
  readonly violations: string[] = [];

  readonly onServerMessage = (data: string | ArrayBuffer): void => {
    if (typeof data !== 'string') {
      this.violations.push('the server sent a binary frame');
      return;
    }
    let frame: { type?: unknown };
    try {
      frame = JSON.parse(data) as { type?: unknown };
    } catch {
      this.violations.push(`not JSON: ${data.slice(0, 80)}`);
      return;
    }
    if (typeof frame.type !== 'string' || !SERVER_MESSAGES.includes(frame.type)) {
      this.violations.push(`unknown server message ${String(frame.type)}`);
      return;
    }
    const { type } = frame;
    const validate = messageValidator(type);
    if (!validate(frame))
      this.violations.push(`${type} breaks its schema: ${JSON.stringify(validate.errors)} in ${data}`);
  };

  watchClose(closed: Promise<{ code: number }>): void {
    void closed.then(({ code }) => {
      if (!documentedCloseCodes().includes(code) && code !== 1006)
        this.violations.push(`close code ${code} is not in the document's list`);
    });
  }
}

export type CheckedSocket = StreamSocket<WebSocket> & { readonly violations: string[] };

/** A stream socket on `url` whose server messages are checked (`violations`); `next` waits FRAME_TIMEOUT_MS. */
export async function openCheckedSocket(url: string): Promise<CheckedSocket> {
  const check = new StreamWireCheck();
  const socket = await openStreamSocket(url, {
    WebSocket,
    onServerMessage: check.onServerMessage,
    frameTimeoutMs: FRAME_TIMEOUT_MS,
  });
  check.watchClose(socket.closed);
  return Object.assign(socket, { violations: check.violations });
}

/** connectStream with the `ws` WebSocket and the same checks; `violations` should stay empty. */
export async function connectCheckedStream(
  client: Client,
  options: Omit<ConnectStreamOptions, 'WebSocket' | 'onServerMessage'> = {},
): Promise<StreamConnection & { readonly violations: string[] }> {
  const check = new StreamWireCheck();
  const connection = await connectStream(client, {
    frameTimeoutMs: FRAME_TIMEOUT_MS,
    ...options,
    WebSocket,
    onServerMessage: check.onServerMessage,
  });
  check.watchClose(connection.closed);
  return Object.assign(connection, { violations: check.violations });
}
