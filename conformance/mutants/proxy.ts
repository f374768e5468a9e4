// The mutating proxy of `npm run conformance:mutants`: it sits between the suite and a real server, forwards every
// request (HTTP and the stream's WebSocket), and lets one mutant rewrite what comes back — statuses, headers,
// bodies, stream frames, and the webhook deliveries it relays. It remembers the last successful answer of each
// operation and path, so "accepting" mutants can answer a refused request as if it had been let in. A mutant may
// also change what the server is told (a request body, a client's stream frame: a server that reads them otherwise),
// give a stream ticket's connection a session of its own (a ticket that outlives its time or is claimed twice), and
// rewrite a webhook's payload, signed again with the endpoint's secret (which the proxy saw at its registration).
import { createHmac, randomUUID } from 'node:crypto';
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
  /** Rewrites the body of a request on its way to the server (a server that reads what was sent otherwise). */
  request?: (request: ProxyRequest) => Buffer | undefined;
  /**
   * Rewrites a server → client stream frame; a list sends several frames (none: the frame is held back). `connection`
   * is scratch state of this one WebSocket connection.
   */
  frame?: (data: string, connection: Map<string, unknown>) => string | string[];
  /** Rewrites a client → server stream frame (a server that reads the client's frames otherwise), or only sees it go by. */
  clientFrame?: (frame: { data: Buffer; binary: boolean }, memory: Memory) => { data: Buffer; binary: boolean };
  /** The path the stream's WebSocket is opened at upstream, from the path the client opened. */
  socketPath?: (path: string) => string;
  /**
   * Whether a connection with a ticket gets a session of its own anyway (as if its claim had succeeded): the proxy
   * creates a new session with the request that created the ticket and connects the client to that one. `ageMs` is
   * the time since the ticket's creation, `open` the connections with this ticket open at the moment.
   */
  freshSession?: (claim: { ageMs: number; open: number }) => boolean;
  /** Rewrites a relayed webhook delivery's JSON payload; the delivery is signed again with the endpoint's secret. */
  webhookBody?: (payload: Record<string, unknown>) => Record<string, unknown>;
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

const jsonOf = (body: Buffer): unknown => {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
};

export const json = (response: ProxyResponse): unknown => jsonOf(response.body);

export const withJson = (response: ProxyResponse, value: unknown, status = response.status): ProxyResponse => ({
  status,
  headers: {
    ...response.headers,
    'content-type': response.headers['content-type'] ?? 'application/json; charset=utf-8',
  },
  body: Buffer.from(JSON.stringify(value)),
});

/** The request that created a stream ticket, when, and how many connections with the ticket are open. */
interface Created {
  createdAt: number;
  path: string;
  headers: Record<string, string>;
  body: Buffer;
  open: number;
}

/** A Standard Webhooks v1 signature of a delivery (the endpoint's `whsec_` secret keys it). */
const signed = (secret: string, id: string, timestamp: string, body: string) =>
  `v1,${createHmac('sha256', Buffer.from(secret.replace(/^whsec_/, ''), 'base64'))
    .update(`${id}.${timestamp}.${body}`)
    .digest('base64')}`;

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
  let tickets = new Map<string, Created>();
  /** Each registered webhook URL's secret, so a rewritten delivery can be signed again. */
  const secrets = new Map<string, string>();
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
        let payload = body.toString('utf8');
        const secret = secrets.get(target);
        if (mutant?.webhookBody && secret) {
          try {
            payload = JSON.stringify(mutant.webhookBody(JSON.parse(payload) as Record<string, unknown>));
            const id = headers['webhook-id'] ?? '';
            const timestamp = headers['webhook-timestamp'] ?? '';
            headers = { ...headers, 'webhook-signature': signed(secret, id, timestamp, payload) };
          } catch {
            /* not JSON: relayed as is */
          }
        }
        if (mutant?.webhook) headers = mutant.webhook(headers, payload);
        if (!headers) {
          outgoing.writeHead(200).end();
          return;
        }
        for (const name of HOP_BY_HOP) delete headers[name];
        delete headers.host;
        const relayed = await fetch(target, { method, headers, body: payload }).catch(() => undefined);
        outgoing.writeHead(relayed?.status ?? 502).end();
        return;
      }
      const operation = spec.match(method, path.split('?')[0]!);
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(incoming.headers))
        if (typeof value === 'string' && !HOP_BY_HOP.has(name) && name !== 'host') headers[name] = value;
      let forwardBody = mutant?.request?.({ method, path, headers, body, operation }) ?? body;
      if (operation?.id === 'createWebhook' && /json/.test(headers['content-type'] ?? '')) {
        // deliveries go through the relay, so a mutant can tamper with them on the way
        try {
          const parsed = JSON.parse(forwardBody.toString('utf8')) as { url?: unknown };
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
      if (operation?.id === 'createWebhook' && response.status === 201) {
        const target = (jsonOf(body) as { url?: unknown } | undefined)?.url;
        const secret = (json(response) as { secret?: unknown } | undefined)?.secret;
        if (typeof target === 'string' && typeof secret === 'string') secrets.set(target, secret);
      }
      if (operation?.id === 'createStreamSession' && response.status === 201) {
        // the ticket URL must lead through the proxy too
        const text = response.body
          .toString('utf8')
          .replace(`ws://${upstreamUrl.host}`, selfUrl.replace('http://', 'ws://'));
        response = { ...response, body: Buffer.from(text) };
        const url = (JSON.parse(text) as { stream_url?: unknown }).stream_url;
        const ticket = typeof url === 'string' ? new URL(url).searchParams.get('ticket') : null;
        if (ticket) tickets.set(ticket, { createdAt: Date.now(), path, headers, body: forwardBody, open: 0 });
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
  /** A new session made with the request that created `ticket`: the upstream path (with its ticket) to open. */
  const sessionAgain = async (created: Created): Promise<string | undefined> => {
    // without the original's idempotency key, which would replay the first session
    const headers = { ...created.headers };
    delete headers['idempotency-key'];
    const answer = await fetch(new URL(created.path, upstream), {
      method: 'POST',
      headers,
      body: new Uint8Array(created.body),
      signal: AbortSignal.timeout(10_000),
    });
    const url = ((await answer.json().catch(() => undefined)) as { stream_url?: unknown } | undefined)?.stream_url;
    if (typeof url !== 'string') return undefined;
    const fresh = new URL(url);
    return `${fresh.pathname}${fresh.search}`;
  };
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
      const created = tickets.get(ticket);
      const claim = created && { ageMs: Date.now() - created.createdAt, open: created.open };
      if (created) {
        created.open++;
        client.on('close', () => created.open--);
      }
      const connection = new Map<string, unknown>();
      let server: WebSocket | undefined;
      const pending: Array<[WebSocket.RawData, boolean]> = [];
      client.on('message', (raw, isBinary) => {
        const frame = mutant?.clientFrame
          ? mutant.clientFrame({ data: raw as Buffer, binary: isBinary }, memory)
          : { data: raw as Buffer, binary: isBinary };
        if (server?.readyState === WebSocket.OPEN) server.send(frame.data, { binary: frame.binary });
        else pending.push([frame.data, frame.binary]);
      });
      // until the upstream socket exists (a fresh session is asked for first), an error of the client only ends it
      client.on('error', () => {
        server?.terminate();
        client.terminate();
      });
      void (async () => {
        let upstreamPath = mutant?.socketPath ? mutant.socketPath(path) : path;
        if (created && claim && mutant?.freshSession?.(claim))
          upstreamPath = (await sessionAgain(created).catch(() => undefined)) ?? upstreamPath;
        if (client.readyState !== WebSocket.OPEN) return;
        server = new WebSocket(new URL(upstreamPath, upstream.replace(/^http/, 'ws')).toString());
        const upstreamSocket = server;
        upstreamSocket.on('open', () => {
          for (const [data, binary] of pending.splice(0)) upstreamSocket.send(data, { binary });
        });
        upstreamSocket.on('message', (data, binary) => {
          if (binary) return client.send(data, { binary });
          const out = mutant?.frame ? mutant.frame(data.toString(), connection) : data.toString();
          for (const text of Array.isArray(out) ? out : [out]) {
            frames.push(text);
            client.send(text);
          }
        });
        const closeBoth = (from: WebSocket, to: WebSocket, rewrite?: (code: number) => number) =>
          from.on('close', (code, reason) => {
            if (to.readyState === WebSocket.OPEN || to.readyState === WebSocket.CONNECTING) {
              if (code === 1005 || code === 1006) to.terminate();
              else to.close(rewrite ? rewrite(code) : code, reason);
            }
          });
        closeBoth(upstreamSocket, client, mutant?.closeCode);
        closeBoth(client, upstreamSocket);
        upstreamSocket.on('error', () => client.terminate());
      })();
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
      tickets = new Map();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const client of sockets.clients) client.terminate();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
