// One stream session as the suite sees it: the ticket URL opened over a real WebSocket, a script run once it is open,
// and every server frame collected until the close. The streaming phase and the --slow cases both open sessions.
import WebSocket from 'ws';
import type { ServerFrame } from '../checks/stream-protocol-conformance.ts';

export interface Session {
  frames: ServerFrame[];
  closeCode: number;
}

/** Opens the ticket URL, runs `script` once open, and collects every server frame until the close (or timeout). */
export function openSession(
  url: string,
  script: (socket: WebSocket, frames: ServerFrame[]) => void,
  timeoutMs = 60_000,
) {
  return new Promise<Session>((resolve) => {
    const frames: ServerFrame[] = [];
    const socket = new WebSocket(url);
    const timer = setTimeout(() => {
      socket.terminate();
      resolve({ frames, closeCode: -1 });
    }, timeoutMs);
    socket.on('open', () => script(socket, frames));
    socket.on('message', (data: Buffer, isBinary: boolean) => {
      frames.push(isBinary ? { kind: 'binary', bytes: data.length } : { kind: 'text', data: data.toString('utf8') });
    });
    socket.on('close', (code: number) => {
      clearTimeout(timer);
      resolve({ frames, closeCode: code });
    });
    socket.on('error', () => {
      /* the close event follows and carries the outcome */
    });
  });
}
