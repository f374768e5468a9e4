// The mutating proxy of `npm run conformance:mutants`: it sits between the suite and a real server, forwards every
// request (HTTP and the stream's WebSocket), and lets one mutant rewrite what comes back — statuses, headers,
// bodies, stream frames, and the webhook deliveries it relays. It remembers the last successful answer of each
// operation and path, so "accepting" mutants can answer a refused request as if it had been let in.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import WebSocket, { WebSocketServer } from 'ws';
import { headersOf } from '../core/client.ts';
import type { Operation, Spec } from '../core/spec.ts';

export interface ProxyRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Buffer;
  operation: Operation | undefined;
}

export interface ProxyResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

export interface Memory {
  /** The last 2xx answer of an operation. */
  lastGood(operationId: string): ProxyResponse | undefined;
  /** The last 2xx answer of exactly this method and path. */
  lastGoodAt(method: string, path: string): ProxyResponse | undefined;
  /** Per-mutant scratch state (counters per task, ...). */
  state: Map<string, unknown>;
}

export interface Mutant {
  name: string;
  category: string;
  /** The ids of the ledger rules (conformance/rules.yaml) the mutant breaks. */
  rules: string[];
  /**
   * Suite arguments that exercise what the mutant breaks (phases, operations); without them the runner takes the
   * phases and operations the baseline's rule trace ties to the mutant's rules.
   */
  args?: string[];
  /** Rewrites an answer (return undefined to leave it). */
  response?: (request: ProxyRequest, response: ProxyResponse, memory: Memory) => ProxyResponse | undefined;
  /** Rewrites a server → client stream frame. */
  frame?: (data: string) => string;
  /** Sees each client → server stream frame go by (it is forwarded as sent). */
  clientFrame?: (memory: Memory) => void;
  /** A second connection with a used ticket is answered with the first session's frames. */
  replayReusedTicket?: boolean;
  /** Rewrites a relayed webhook delivery's headers (undefined: the delivery is lost on the way, answered 200). */
  webhook?: (headers: Record<string, string>, body: string) => Record<string, string> | undefined;
  /** Rewrites the close code the server ends a stream session with. */
  closeCode?: (code: number) => number;
  /**
   * The path (with its query) the server is asked instead of the one sent, as a server that reads the request
   * otherwise would (a default it fills in differently); the mutant's other rewrites still see the one sent.
   */
  forwardPath?: (method: string, path: string, operation: Operation | undefined) => string | undefined;
}

export const json = (response: ProxyResponse): unknown => {
  try {
    return JSON.parse(response.body.toString('utf8'));
  } catch {
    return undefined;
  }
};

export const withJson = (response: ProxyResponse, value: unknown, status = response.status): ProxyResponse => ({
  status,
  headers: {
    ...response.headers,
    'content-type': response.headers['content-type'] ?? 'application/json; charset=utf-8',
  },
  body: Buffer.from(JSON.stringify(value)),
});

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'content-encoding']);

export interface Proxy {
  baseUrl: string;
  setMutant(mutant: Mutant | undefined): void;
  close(): Promise<void>;
}

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export async function startProxy(upstream: string, spec: Spec): Promise<Proxy> {
  let mutant: Mutant | undefined;
  let good = new Map<string, ProxyResponse>();
  let goodAt = new Map<string, ProxyResponse>();
  let state = new Map<string, unknown>();
  let sessions = new Map<string, string[]>();
  const memory: Memory = {
    lastGood: (id) => good.get(id),
    lastGoodAt: (method, path) => goodAt.get(`${method} ${path}`),
    get state() {
      return state;
    },
  };
  const upstreamUrl = new URL(upstream);
  let selfUrl = '';

  const server: Server = createServer((incoming, outgoing) => {
    void (async () => {
      const body = await readBody(incoming);
      const path = incoming.url ?? '/';
      const method = incoming.method ?? 'GET';
      if (path.startsWith('/__relay')) {
        // a webhook delivery from the server on its way to the suite's receiver
        const target = new URL(path, selfUrl).searchParams.get('to')!;
        let headers: Record<string, string> | undefined = headersOf(
          new Headers(incoming.headers as Record<string, string>),
        );
        if (mutant?.webhook) headers = mutant.webhook(headers, body.toString('utf8'));
        if (!headers) {
          outgoing.writeHead(200).end();
          return;
        }
        for (const name of HOP_BY_HOP) delete headers[name];
        delete headers.host;
        const relayed = await fetch(target, { method, headers, body: new Uint8Array(body) }).catch(() => undefined);
        outgoing.writeHead(relayed?.status ?? 502).end();
        return;
      }
      const operation = spec.match(method, path.split('?')[0]!);
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(incoming.headers))
        if (typeof value === 'string' && !HOP_BY_HOP.has(name) && name !== 'host') headers[name] = value;
      let forwardBody = body;
      if (operation?.id === 'createWebhook' && /json/.test(headers['content-type'] ?? '')) {
        // deliveries go through the relay, so a mutant can tamper with them on the way
        try {
          const parsed = JSON.parse(body.toString('utf8')) as { url?: unknown };
          if (typeof parsed.url === 'string' && parsed.url.startsWith('http://127.0.0.1')) {
            parsed.url = `${selfUrl}/__relay?to=${encodeURIComponent(parsed.url)}`;
            forwardBody = Buffer.from(JSON.stringify(parsed));
          }
        } catch {
          /* not JSON: forwarded as is */
        }
      }
      const answer = await fetch(new URL(mutant?.forwardPath?.(method, path, operation) ?? path, upstream), {
        method,
        headers,
        body: method === 'GET' || method === 'HEAD' ? undefined : new Uint8Array(forwardBody),
        redirect: 'manual',
      });
      let response: ProxyResponse = {
        status: answer.status,
        headers: headersOf(answer.headers),
        body: Buffer.from(await answer.arrayBuffer()),
      };
      for (const name of HOP_BY_HOP) delete response.headers[name];
      if (operation?.id === 'createStreamSession' && response.status === 201) {
        // the ticket URL must lead through the proxy too
        const text = response.body
          .toString('utf8')
          .replace(`ws://${upstreamUrl.host}`, selfUrl.replace('http://', 'ws://'));
        response = { ...response, body: Buffer.from(text) };
      }
      const request: ProxyRequest = { method, path, headers, body, operation };
      const mutated = mutant?.response?.(request, response, memory);
      if (response.status >= 200 && response.status < 300) {
        if (operation) good.set(operation.id, response);
        goodAt.set(`${method} ${path.split('?')[0]}`, response);
      }
      const sent = mutated ?? response;
      outgoing.writeHead(sent.status, { ...sent.headers, 'content-length': String(sent.body.length) }).end(sent.body);
    })().catch((error: Error) => {
      if (!outgoing.headersSent) outgoing.writeHead(502).end(error.message);
    });
  });

  const sockets = new WebSocketServer({ noServer: true });
  server.on('upgrade', (request, socket, head) => {
    sockets.handleUpgrade(request, socket, head, (client) => {
      const path = request.url ?? '/';
      const ticket = new URL(path, 'ws://proxy').searchParams.get('ticket') ?? randomUUID();
      const recorded = sessions.get(ticket);
      if (recorded && mutant?.replayReusedTicket) {
        for (const frame of recorded) client.send(frame);
        client.close(1000);
        return;
      }
      const frames: string[] = [];
      sessions.set(ticket, frames);
      const server = new WebSocket(new URL(path, upstream.replace(/^http/, 'ws')).toString());
      const pending: Array<[WebSocket.RawData, boolean]> = [];
      server.on('open', () => {
        for (const [data, binary] of pending.splice(0)) server.send(data, { binary });
      });
      client.on('message', (data, binary) => {
        mutant?.clientFrame?.(memory);
        if (server.readyState === WebSocket.OPEN) server.send(data, { binary });
        else pending.push([data, binary]);
      });
      server.on('message', (data, binary) => {
        let out: WebSocket.RawData | string = data;
        if (!binary) {
          out = mutant?.frame ? mutant.frame(data.toString()) : data.toString();
          frames.push(out);
        }
        client.send(out, { binary });
      });
      const closeBoth = (from: WebSocket, to: WebSocket, rewrite?: (code: number) => number) =>
        from.on('close', (code, reason) => {
          if (to.readyState === WebSocket.OPEN || to.readyState === WebSocket.CONNECTING) {
            if (code === 1005 || code === 1006) to.terminate();
            else to.close(rewrite ? rewrite(code) : code, reason);
          }
        });
      closeBoth(server, client, mutant?.closeCode);
      closeBoth(client, server);
      server.on('error', () => client.terminate());
      client.on('error', () => server.terminate());
    });
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  selfUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    baseUrl: selfUrl,
    setMutant(next) {
      mutant = next;
      good = new Map();
      goodAt = new Map();
      state = new Map();
      sessions = new Map();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const client of sockets.clients) client.terminate();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
