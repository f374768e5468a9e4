// A TCP proxy between the server and its PostgreSQL that a test can break the way networks and hosts break: `freeze`
// stops passing bytes in both directions while every socket stays open (a frozen host or a black-holed route: the
// client waits, nothing errors), `cut` resets every connection and refuses new ones (a lost host), `heal` goes back
// to passing everything. The database itself stays untouched, so the machine's PostgreSQL can sit behind it.
import { createServer, connect, type Server, type Socket } from 'node:net';

export interface FaultProxy {
  /** The target URL with the proxy's address in place of the server's. */
  url: string;
  freeze(): void;
  cut(): void;
  heal(): void;
  close(): Promise<void>;
}

export async function startFaultProxy(targetUrl: string): Promise<FaultProxy> {
  const target = new URL(targetUrl);
  let mode: 'pass' | 'frozen' | 'cut' = 'pass';
  const pairs = new Set<[Socket, Socket]>();
  const pipeOf = (from: Socket, to: Socket) =>
    from.on('data', (chunk: Buffer) => {
      // Frozen: the bytes are held back (as by a stopped host), and sent once healed.
      if (mode === 'pass') to.write(chunk);
      else if (mode === 'frozen') held.get(to)!.push(chunk);
    });
  const held = new Map<Socket, Buffer[]>();
  const server: Server = createServer((client) => {
    if (mode === 'cut') return client.resetAndDestroy();
    const upstream = connect(Number(target.port || 5432), target.hostname);
    const pair: [Socket, Socket] = [client, upstream];
    pairs.add(pair);
    held.set(client, []);
    held.set(upstream, []);
    const end = () => {
      pairs.delete(pair);
      held.delete(client);
      held.delete(upstream);
      client.destroy();
      upstream.destroy();
    };
    for (const socket of pair) socket.on('error', end).on('close', end);
    pipeOf(client, upstream);
    pipeOf(upstream, client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  const url = new URL(targetUrl);
  url.hostname = '127.0.0.1';
  url.port = String(port);
  return {
    url: url.toString(),
    freeze: () => {
      mode = 'frozen';
    },
    cut: () => {
      mode = 'cut';
      for (const [client, upstream] of pairs) {
        client.resetAndDestroy();
        upstream.destroy();
      }
    },
    heal: () => {
      mode = 'pass';
      for (const [socket, chunks] of held) {
        for (const chunk of chunks.splice(0)) socket.write(chunk);
      }
    },
    close: async () => {
      for (const [client, upstream] of pairs) {
        client.destroy();
        upstream.destroy();
      }
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
