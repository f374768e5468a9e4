// One delivery attempt over HTTP: the endpoint URL passes the address guard again (the registration check may be
// stale: DNS changes), and the socket connects to exactly the address the guard approved (a fixed `lookup`), so a
// second DNS answer cannot point the request at an internal host. Redirects are not followed. The attempt has one
// deadline for the address check, the connection and the answer's status line; the answer's body is ignored.
import type { IncomingMessage } from 'node:http';
import { UrlRefusedError, type AddressGuard, type CheckedAddress } from '../media/address-guard.ts';
import { abortable, requestPinned } from '../media/pinned-request.ts';

export interface SendOptions {
  guard: AddressGuard;
  timeoutMs: number;
  /** Aborts the attempt (server shutdown); the outcome is then `aborted`. */
  signal?: AbortSignal;
}

export interface SendOutcome {
  /** The receiver's HTTP status, or null when no answer arrived. */
  status: number | null;
  /** Why the attempt did not count as delivered (null for 2xx). */
  error: string | null;
  durationMs: number;
  /** The caller's signal ended the attempt before an answer. */
  aborted: boolean;
  /** The receiver did not answer within the time limit (it accepts and hangs, or is very slow). */
  timedOut?: boolean;
  /** For the server's log only: the address (and range) or DNS error behind a refusal; never stored on the delivery. */
  refusalDetail?: string;
}

const USER_AGENT = 'Scribe-Webhooks/0.1 (+https://www.standardwebhooks.com/)';

function post(
  url: URL,
  target: CheckedAddress,
  headers: Record<string, string>,
  body: string,
  signal: AbortSignal,
): Promise<IncomingMessage> {
  return requestPinned(url, target, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(body)),
      'user-agent': USER_AGENT,
      ...headers,
    },
    body,
    signal,
  });
}

/** A readable reason for a non-2xx status. */
export function statusError(status: number): string {
  if (status === 410) return 'The receiver answered 410 Gone; the endpoint was disabled.';
  if (status >= 300 && status < 400) return `The receiver answered ${status}; redirects are not followed.`;
  return `The receiver answered ${status}.`;
}

/** Posts `body` with `headers` to `url`; never throws. */
export async function sendAttempt(
  url: string,
  headers: Record<string, string>,
  body: string,
  options: SendOptions,
): Promise<SendOutcome> {
  const started = performance.now();
  const elapsed = () => performance.now() - started;
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, options.timeoutMs);
  const onCallerAbort = () => controller.abort();
  if (options.signal?.aborted) onCallerAbort();
  else options.signal?.addEventListener('abort', onCallerAbort, { once: true });

  try {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return { status: null, error: 'The URL is not a valid absolute URL.', durationMs: elapsed(), aborted: false };
    }
    const target = await abortable(options.guard.check(parsed), controller.signal);
    const response = await post(parsed, target, headers, body, controller.signal);
    const status = response.statusCode ?? 0;
    // The body is ignored: read and dropped, and the connection is cut if it does not end within the deadline.
    response.on('error', () => undefined);
    response.resume();
    setTimeout(() => response.destroy(), options.timeoutMs).unref();
    const ok = status >= 200 && status < 300;
    return { status, error: ok ? null : statusError(status), durationMs: elapsed(), aborted: false };
  } catch (error) {
    const durationMs = elapsed();
    if (timedOut) {
      const seconds = Math.round(options.timeoutMs / 100) / 10;
      return { status: null, error: `No answer within ${seconds} s.`, durationMs, aborted: false, timedOut: true };
    }
    if (options.signal?.aborted)
      return { status: null, error: 'The attempt was interrupted.', durationMs, aborted: true };
    if (error instanceof UrlRefusedError) {
      return {
        status: null,
        error: `The URL was refused before sending: ${error.message}`,
        durationMs,
        aborted: false,
        ...(error.detail ? { refusalDetail: error.detail } : {}),
      };
    }
    const { code, message } = error as NodeJS.ErrnoException;
    return {
      status: null,
      error: `The connection failed (${code ?? message ?? 'error'}).`,
      durationMs,
      aborted: false,
    };
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onCallerAbort);
  }
}
