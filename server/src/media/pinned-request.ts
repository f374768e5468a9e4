// One HTTP(S) request to the address the address guard approved: the socket connects to exactly that address (a
// fixed `lookup`) while Host and TLS SNI keep the URL's host name, so a second DNS answer between the check and the
// connection (DNS rebinding) cannot point the request at an internal host. Used by media downloads and webhook
// deliveries, which both reach client-supplied URLs.
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import type { CheckedAddress } from './address-guard.ts';

export interface PinnedRequestOptions {
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
  signal: AbortSignal;
}

/** Sends the request and resolves with the response head (the caller reads or drops the body). */
export function requestPinned(
  url: URL,
  target: CheckedAddress,
  options: PinnedRequestOptions,
): Promise<IncomingMessage> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const lookup: LookupFunction = (_hostname, lookupOptions, callback) => {
    if (lookupOptions.all) callback(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  };
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const request = client.request(
      {
        protocol: url.protocol,
        hostname: host,
        port: url.port || undefined,
        path: `${url.pathname}${url.search}`,
        method: options.method,
        auth: url.username ? `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}` : undefined,
        headers: options.headers,
        // A fresh connection per request: a pooled socket would skip `lookup` and could point elsewhere.
        agent: false,
        lookup,
        servername: isIP(host) ? undefined : host,
        signal: options.signal,
      },
      resolve,
    );
    request.on('error', reject);
    request.end(options.body);
  });
}

/** `promise`, or a rejection with the signal's reason as soon as `signal` aborts (for steps that take no signal). */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error as Error);
      },
    );
  });
}
