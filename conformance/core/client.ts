// The one way the suite talks HTTP: applies the operation's credentials (Bearer, HMAC-signed v2/v1 headers, admin
// token), stays under the rate limit, waits out a 429's Retry-After (unless the case is about the 429 itself),
// encodes JSON/raw/multipart bodies, and returns the exchange as sent and received.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { canonicalString, sign } from './v1-signature.ts';
import type { RateLimiter } from './rate-limiter.ts';
import { sleep } from './rate-limiter.ts';
import type { SecurityKind } from './spec.ts';
import type { AuthMode, Exchange, HttpRequest, HttpResponse, Phase, RequestBody } from './types.ts';

/** One account's credentials; `account` names it for the rate limiter and the report. */
export interface Credentials {
  account: string;
  apiKey?: string;
  publicKey?: string;
  secret?: string;
}

export interface SendOptions {
  phase: Phase;
  label: string;
  operationId?: string;
  security: SecurityKind;
  auth?: AuthMode;
  credentials?: Credentials;
  /** A rate-limit probe: sent unthrottled, and a 429 is kept instead of waited out and retried. */
  keep429?: boolean;
}

export class MissingCredentials extends Error {
  override name = 'MissingCredentials';
}

/** The v2/v1 signature headers (canonical string `public_key\ntimestamp`) at `timestamp` (Unix seconds). */
export function hmacHeaders(publicKey: string, secret: string, timestamp = Math.floor(Date.now() / 1000)) {
  const ts = String(timestamp);
  return { 'X-Public-Key': publicKey, 'X-Timestamp': ts, 'X-Signature': sign(secret, canonicalString(publicKey, ts)) };
}

function encode(body: RequestBody | undefined): { payload?: Buffer; contentType?: string } {
  if (!body) return {};
  if (body.kind === 'json')
    return { payload: Buffer.from(JSON.stringify(body.value)), contentType: 'application/json' };
  if (body.kind === 'raw') return { payload: Buffer.from(body.text), contentType: body.contentType };
  const boundary = `scribe-conformance-${randomBytes(8).toString('hex')}`;
  const chunks: Buffer[] = [];
  for (const part of body.parts) {
    if ('file' in part) {
      chunks.push(
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"; filename="${part.filename}"\r\n` +
            `Content-Type: ${part.contentType}\r\n\r\n`,
        ),
        readFileSync(part.file),
        Buffer.from('\r\n'),
      );
    } else {
      chunks.push(
        Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"\r\n\r\n${part.value}\r\n`),
      );
    }
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

export class Client {
  requests = 0;
  readonly adminToken: string | undefined;

  constructor(
    readonly baseUrl: string,
    private readonly limiter: RateLimiter,
    readonly main: Credentials,
    adminToken: string | undefined,
    private readonly timeoutMs = 120_000,
  ) {
    this.adminToken = adminToken;
  }

  /** The credential headers for `security`; throws MissingCredentials when the run was given none. */
  authHeaders(security: SecurityKind, credentials: Credentials = this.main): Record<string, string> {
    if (security === 'bearer') {
      if (!credentials.apiKey) throw new MissingCredentials('no v3 API key (--api-key or --admin-token)');
      return { Authorization: `Bearer ${credentials.apiKey}` };
    }
    if (security === 'hmac') {
      if (!credentials.publicKey || !credentials.secret)
        throw new MissingCredentials('no v2 key pair (--public-key/--secret or --admin-token)');
      return hmacHeaders(credentials.publicKey, credentials.secret);
    }
    if (security === 'admin') {
      if (!this.adminToken) throw new MissingCredentials('no admin token (--admin-token)');
      return { 'X-Admin-Token': this.adminToken };
    }
    return {};
  }

  async send(request: HttpRequest, options: SendOptions): Promise<Exchange> {
    const credentials = options.credentials ?? this.main;
    const auth = options.auth ?? 'default';
    // Admin and unauthenticated calls are not rate limited per account; they share one polite bucket.
    const bucket = options.security === 'bearer' || options.security === 'hmac' ? credentials.account : '(other)';
    for (let attempt = 0; ; attempt++) {
      const credentialHeaders =
        auth === 'default' ? this.authHeaders(options.security, credentials) : auth === 'none' ? {} : auth.headers;
      const { payload, contentType } = encode(request.body);
      const headers: Record<string, string> = { ...credentialHeaders };
      if (contentType && !hasHeader(request.headers, 'content-type')) headers['Content-Type'] = contentType;
      Object.assign(headers, request.headers);
      const url = new URL(request.path, this.baseUrl).toString();
      if (!options.keep429) await this.limiter.acquire(bucket);
      const started = performance.now();
      this.requests += 1;
      const response = await fetch(url, {
        method: request.method,
        headers,
        body: payload ? new Uint8Array(payload) : undefined,
        redirect: 'manual',
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      const text = await response.text();
      const received: HttpResponse = {
        status: response.status,
        headers: headersOf(response.headers),
        text,
        body: parseJson(text),
        elapsedMs: performance.now() - started,
      };
      this.limiter.observe(bucket, received.headers);
      const retryAfter = Number(received.headers['retry-after']);
      if (received.status === 429 && !options.keep429 && this.limiter.enabled && attempt < 4) {
        await sleep((Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : 1) * 1000 + 50);
        continue;
      }
      const sent = { ...request, headers, url };
      // The multipart Content-Type carries a boundary that curl makes itself; keep what the case asked for.
      if (request.body?.kind === 'multipart' && !hasHeader(request.headers, 'content-type'))
        delete sent.headers['Content-Type'];
      return {
        operationId: options.operationId,
        phase: options.phase,
        label: options.label,
        request: sent,
        response: received,
      };
    }
  }
}

export function parseJson(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export const hasHeader = (headers: Record<string, string>, name: string) =>
  Object.keys(headers).some((h) => h.toLowerCase() === name);

export function headersOf(headers: Headers): Record<string, string> {
  const result: Record<string, string> = {};
  headers.forEach((value, name) => {
    result[name.toLowerCase()] = value;
  });
  return result;
}
