// Signing a v2/v1 request (security schemes PublicKey + Timestamp + Signature): `X-Signature` is the lowercase hex
// HMAC-SHA256 of `public_key\ntimestamp` keyed with the pair's secret. With `version: 2` (the `X-Signature-Version: 2`
// extension) the canonical string also covers `\nMETHOD\nPATH?QUERY\nhex(SHA-256(body))` and, when a nonce is sent,
// `\nnonce`: a captured request cannot be sent again with another method, path or body (a multipart body is hashed
// exactly as it will be sent, boundaries included), and, with its nonce, cannot be sent again at all. The timestamp is
// taken once so the headers always agree.
import { bytesOf, hex, hmacSha256, sha256Hex } from './bytes.ts';

export interface V2Credentials {
  publicKey: string;
  secret: string;
  /** 1 (the seed's scheme, the default) or 2 (binds method, path, query and body). */
  version?: 1 | 2;
  /** The current time in milliseconds (default `Date.now`). */
  now?: () => number;
  /**
   * Version 2 only: the `X-Signature-Nonce` that makes the request usable once. Default a random UUID per signing;
   * `false` sends none (the request can then be replayed within the ±300 s window).
   */
  nonce?: false | (() => string);
}

/** The canonical string a signature covers (`nonce` only with version 2). */
export async function v2CanonicalString(
  request: Request,
  publicKey: string,
  timestamp: string,
  version: 1 | 2,
  nonce?: string,
) {
  if (version === 1) return `${publicKey}\n${timestamp}`;
  const url = new URL(request.url);
  // The clone reads the same bytes the request will send (a FormData body is encoded once, with one boundary).
  const body = await sha256Hex(await request.clone().arrayBuffer());
  const signed = `${publicKey}\n${timestamp}\n${request.method}\n${url.pathname}${url.search}\n${body}`;
  return nonce ? `${signed}\n${nonce}` : signed;
}

/**
 * Sets `X-Public-Key`, `X-Timestamp`, `X-Signature` (and `X-Signature-Version: 2` with `X-Signature-Nonce`) on the
 * request and returns it. Fits the generated client's request interceptors:
 * `client.interceptors.request.use((request) => signV2Request(request, { publicKey, secret, version: 2 }))`.
 */
export async function signV2Request(request: Request, credentials: V2Credentials): Promise<Request> {
  const version = credentials.version ?? 1;
  const timestamp = String(Math.floor((credentials.now ?? Date.now)() / 1000));
  const nonce =
    version === 2 && credentials.nonce !== false ? (credentials.nonce ?? (() => crypto.randomUUID()))() : undefined;
  const canonical = await v2CanonicalString(request, credentials.publicKey, timestamp, version, nonce);
  request.headers.set('X-Public-Key', credentials.publicKey);
  request.headers.set('X-Timestamp', timestamp);
  request.headers.set('X-Signature', hex(await hmacSha256(bytesOf(credentials.secret), canonical)));
  if (version === 2) request.headers.set('X-Signature-Version', '2');
  else request.headers.delete('X-Signature-Version');
  if (nonce) request.headers.set('X-Signature-Nonce', nonce);
  else request.headers.delete('X-Signature-Nonce');
  return request;
}
