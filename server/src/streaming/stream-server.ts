// The WebSocket endpoint on the app's own HTTP server: `upgrade` requests for /v3/transcriptions/stream are handed to
// a `ws` server without a listener of its own (noServer); any other upgrade is answered 404 and closed. The handshake
// completes even for a bad ticket, so every client (browsers too) gets the `error` frame that says why (4401).
// WebSocket frames are not counted by the HTTP rate limit. close() (the server shutting down) refuses new upgrades and
// ends every open connection with an `error` frame and 1001 (going away: the client may open a new session at once,
// on another server of the deployment), releasing the reservations before the database goes away. The sweep of tickets and sessions of dead
// processes is background work (roles/background-work.ts), run by `worker` and `all` processes. Sessions of accounts
// blocked meanwhile are ended by the block watch (block-watch.ts) of the process that holds them.
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { WebSocketServer } from 'ws';
import type { StreamingConfig } from '../config.ts';
import { startBlockWatch } from './block-watch.ts';
import type { StreamService } from './session-service.ts';
import { handleConnection, MAX_FRAME_BYTES, type StreamConnection } from './stream-connection.ts';
import type { StreamEngine } from './stream-engine.ts';
import { StreamSocket } from './stream-socket.ts';

export const STREAM_PATH = '/v3/transcriptions/stream';

export interface StreamServerDeps {
  service: StreamService;
  engine: StreamEngine;
  config: StreamingConfig;
  logger: Logger;
}

export function attachStreamServer(server: Server, deps: StreamServerDeps) {
  // ws refuses a message over 1 MiB from its header, before buffering it, and StreamSocket turns the 1009 it would
  // close with (not a code of the contract) into the contract's error frame and 4400, whatever the frame's size.
  const wss = new WebSocketServer<typeof StreamSocket>({
    noServer: true,
    maxPayload: MAX_FRAME_BYTES,
    perMessageDeflate: false,
    WebSocket: StreamSocket,
  });
  const connections = new Set<StreamConnection>();

  function onUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    let url: URL;
    try {
      url = new URL(request.url ?? '/', 'http://localhost');
    } catch {
      url = new URL('http://localhost/');
    }
    if (url.pathname !== STREAM_PATH) {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    wss.handleUpgrade(request, socket, head, (ws) => {
      const connection = handleConnection(ws, url.searchParams.get('ticket'), deps);
      ws.onRefused = (refusal) => connection.refuse(refusal);
      connections.add(connection);
      void connection.done.finally(() => connections.delete(connection));
    });
  }

  server.on('upgrade', onUpgrade);
  const blockWatch = startBlockWatch({ service: deps.service, connections: () => connections, logger: deps.logger });
  let closed: Promise<void> | undefined;

  async function closeAll(): Promise<void> {
    server.off('upgrade', onUpgrade);
    blockWatch.stop();
    // An upgrade that arrives while the server drains is refused rather than left hanging.
    server.on('upgrade', (_request: IncomingMessage, socket: Duplex) =>
      socket.end('HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Length: 0\r\n\r\n'),
    );
    await Promise.all([...connections].map((connection) => connection.shutdown()));
    for (const client of wss.clients) client.terminate();
    await new Promise<void>((resolve) => wss.close(() => resolve()));
    await deps.engine.close();
  }

  return {
    close(): Promise<void> {
      closed ??= closeAll();
      return closed;
    },
  };
}
