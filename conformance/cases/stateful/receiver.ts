// The suite's own HTTP server for the stateful phase: it receives webhook deliveries (recording headers, raw body
// and arrival time, answering 204, or 410 Gone at /hooks/gone-…, the answer that disables an endpoint) and serves the
// test audio for link-based tasks — at once, or slowly (the body held back for a few seconds) so a task can be
// cancelled while it downloads, behind a chain of N redirects (/media/hops/N), or not at all (/media/missing.wav is
// a dead link: 404).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import type { ReceivedWebhook } from '../../checks/webhook-signature-conformance.ts';

export interface Receiver {
  baseUrl: string;
  /** Deliveries received at /hooks/<name>. */
  deliveries(name: string): ReceivedWebhook[];
  /**
   * Waits until a request for /media/slow.wav?fetch=<tag> has arrived and its answer is still held back (the server
   * is downloading that link at this moment), or `timeoutMs` passes; whether it did.
   */
  fetching(tag: string, timeoutMs: number): Promise<boolean>;
  /** Waits until a delivery at /hooks/<name> satisfies `match`, or `timeoutMs` passes. */
  waitFor(name: string, match: (body: unknown) => boolean, timeoutMs: number): Promise<ReceivedWebhook | undefined>;
  close(): Promise<void>;
}

export async function startReceiver(host: string, audioPath: string, slowMs = 6000): Promise<Receiver> {
  const received = new Map<string, ReceivedWebhook[]>();
  const audio = readFileSync(audioPath);
  const timers = new Set<NodeJS.Timeout>();
  /** The `fetch` tags of slow downloads whose answer is still held back. */
  const holding = new Set<string>();
  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://receiver');
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.method === 'POST' && url.pathname.startsWith('/hooks/')) {
        const name = url.pathname.slice('/hooks/'.length);
        const headers: Record<string, string> = {};
        for (const [key, value] of Object.entries(request.headers)) if (typeof value === 'string') headers[key] = value;
        const list = received.get(name) ?? [];
        list.push({ headers, body: Buffer.concat(chunks).toString('utf8'), receivedAt: Date.now() });
        received.set(name, list);
        response.writeHead(name.startsWith('gone-') ? 410 : 204).end();
        return;
      }
      const hops = /^\/media\/hops\/(\d+)$/.exec(url.pathname);
      if (request.method === 'GET' && hops) {
        const left = Number(hops[1]);
        const next = left <= 1 ? '/media/goforward.wav' : `/media/hops/${left - 1}`;
        response.writeHead(302, { Location: next }).end();
        return;
      }
      if (request.method === 'GET' && (url.pathname === '/media/goforward.wav' || url.pathname === '/media/slow.wav')) {
        const send = () => {
          if (!response.destroyed)
            response.writeHead(200, { 'Content-Type': 'audio/wav', 'Content-Length': audio.length }).end(audio);
        };
        if (url.pathname === '/media/slow.wav') {
          const tag = url.searchParams.get('fetch');
          if (tag) {
            holding.add(tag);
            // a download the server gave up (a cancelled task) is no longer being fetched
            response.once('close', () => holding.delete(tag));
          }
          const timer = setTimeout(() => {
            timers.delete(timer);
            if (tag) holding.delete(tag);
            send();
          }, slowMs);
          timers.add(timer);
        } else send();
        return;
      }
      response.writeHead(404).end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    deliveries: (name) => received.get(name) ?? [],
    async fetching(tag, timeoutMs) {
      for (const deadline = Date.now() + timeoutMs; !holding.has(tag);) {
        if (Date.now() > deadline) return false;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return true;
    },
    async waitFor(name, match, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = (received.get(name) ?? []).find((d) => {
          try {
            return match(JSON.parse(d.body));
          } catch {
            return false;
          }
        });
        if (found || Date.now() > deadline) return found;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of timers) clearTimeout(timer);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
