// Test support for the webhook tests: a real HTTP receiver on 127.0.0.1 that records every request and answers what
// the test decides, a Standard Webhooks verification as a receiver does it (scribe-client's, independent of the
// server's signer), and a check of a received request against the contract's `webhooks:` entry (headers and body).
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import { verifyWebhook, WebhookVerificationError } from '../../../client/src/verify-webhook.ts';
import { createContractAjv, inlineReferences, loadContractDocument } from '../http/contract.ts';

export interface Received {
  path: string;
  method: string;
  headers: IncomingHttpHeaders;
  /** The raw body, exactly as it arrived (signatures are over these bytes). */
  body: string;
  at: number;
}

export interface Receiver {
  url: string;
  port: number;
  received: Received[];
  /** Requests to one path. */
  at(path: string): Received[];
  /** What to answer: a status (now or later), or `hang` (never answer). Default 200. */
  answer: (request: Received, index: number) => number | 'hang' | Promise<number>;
  /** Stops accepting connections (connections are refused until `listen` again). */
  close(): Promise<void>;
  /** Listens again on the same port. */
  listen(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  let server: Server;
  const receiver: Receiver = {
    url: '',
    port: 0,
    received: [],
    at: (path) => receiver.received.filter((r) => r.path === path),
    answer: () => 200,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
    listen: () => listen(receiver.port),
  };
  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => {
      server = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (chunk: Buffer) => chunks.push(chunk));
        req.on('end', () => {
          const request: Received = {
            path: new URL(req.url!, 'http://receiver').pathname,
            method: req.method!,
            headers: req.headers,
            body: Buffer.concat(chunks).toString('utf8'),
            at: Date.now(),
          };
          receiver.received.push(request);
          const status = receiver.answer(request, receiver.received.length - 1);
          if (status === 'hang') return;
          void Promise.resolve(status).then((code) => res.writeHead(code, { 'Content-Type': 'text/plain' }).end('ok'));
        });
      });
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        receiver.port = (server.address() as AddressInfo).port;
        receiver.url = `http://127.0.0.1:${receiver.port}`;
        resolve();
      });
    });
  await listen(0);
  return receiver;
}

/**
 * Whether a Standard Webhooks request verifies as a receiver verifies it: with scribe-client's verifyWebhook (Web
 * Crypto, written apart from the server's node:crypto signer), which also refuses a timestamp more than 5 minutes off.
 */
export async function verifyStandardWebhook(
  secret: string,
  headers: IncomingHttpHeaders,
  body: string,
): Promise<boolean> {
  return verifyWebhook(secret, headers, body).then(
    () => true,
    (error: unknown) => {
      if (error instanceof WebhookVerificationError) return false;
      throw error;
    },
  );
}

interface WebhookOperation {
  parameters: { name: string; in: string; required?: boolean; schema: Record<string, unknown> }[];
  requestBody: { content: { 'application/json': { schema: Record<string, unknown> } } };
}

let compiled: Map<string, { body: ValidateFunction; headers: [string, ValidateFunction, boolean][] }> | undefined;

/** Problems of a received request against the contract's `webhooks.<event type>` (empty when it conforms). */
export function contractProblems(request: Received): string[] {
  if (!compiled) {
    const document = inlineReferences(loadContractDocument()) as unknown as {
      webhooks: Record<string, { post: WebhookOperation }>;
    };
    const ajv = createContractAjv({ allErrors: true });
    compiled = new Map();
    for (const [type, item] of Object.entries(document.webhooks)) {
      compiled.set(type, {
        body: ajv.compile(item.post.requestBody.content['application/json'].schema),
        headers: item.post.parameters
          .filter((p) => p.in === 'header')
          .map((p) => [p.name, ajv.compile(p.schema), p.required ?? false]),
      });
    }
  }
  let body: { type?: string };
  try {
    body = JSON.parse(request.body) as { type?: string };
  } catch {
    return ['the body is not JSON'];
  }
  const operation = compiled.get(String(body.type));
  if (!operation) return [`no webhook of type ${String(body.type)} in the contract`];
  const problems: string[] = [];
  if (request.method !== 'POST') problems.push(`method ${request.method}`);
  if (!String(request.headers['content-type']).startsWith('application/json'))
    problems.push(`content-type ${String(request.headers['content-type'])}`);
  if (!operation.body(body)) problems.push(`body: ${JSON.stringify(operation.body.errors)}`);
  for (const [name, validate, required] of operation.headers) {
    const raw = request.headers[name];
    if (raw === undefined) {
      if (required) problems.push(`header ${name} missing`);
      continue;
    }
    const value = /^\d+$/.test(String(raw)) && name === 'webhook-timestamp' ? Number(raw) : raw;
    if (!validate(value)) problems.push(`header ${name}=${String(raw)}: ${JSON.stringify(validate.errors)}`);
  }
  return problems;
}

/** Polls `probe` until it returns a truthy value or `timeoutMs` passes (then throws with `what`). */
export async function until<T>(what: string, probe: () => Promise<T> | T, timeoutMs = 15_000): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
