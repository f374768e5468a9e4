// Fetches a client-supplied media URL to a local file for the async pipeline. Every hop (the first request and each
// redirect) is checked by the address guard, and the socket connects to exactly the address the guard approved (a
// fixed `lookup`), so DNS rebinding between the check and the connection cannot reach an internal host. The size
// limit holds while streaming, the whole download has one deadline, and a failed download leaves no file behind.
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { UrlRefusedError, type AddressGuard, type CheckedAddress } from './address-guard.ts';
import { megabytes } from './megabytes.ts';
import { abortable, requestPinned } from './pinned-request.ts';

export type DownloadFailure =
  | 'refused'
  | 'http_status'
  | 'too_large'
  | 'timeout'
  | 'network'
  | 'too_many_redirects'
  /** The caller's signal aborted the download. */
  | 'aborted';

export class DownloadError extends Error {
  override readonly name = 'DownloadError';
  constructor(
    readonly reason: DownloadFailure,
    message: string,
    /** The URL of the hop that failed. */
    readonly url: string,
    /** The HTTP status, for `http_status`. */
    readonly status?: number,
    /** For the server's log only: the address (and range) or DNS error behind a refusal. Never shown to the client. */
    readonly detail?: string,
  ) {
    super(message);
  }
}

export interface DownloadOptions {
  guard: AddressGuard;
  /** Largest accepted body in bytes. */
  maxBytes: number;
  /** Deadline for the whole download, redirects and DNS included. */
  timeoutMs: number;
  /** Redirects followed before giving up; default 5. */
  maxRedirects?: number;
  signal?: AbortSignal;
}

export interface DownloadResult {
  size: number;
  contentType: string | null;
  /** The URL the body came from, after redirects. */
  finalUrl: string;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** One GET to the checked address; resolves with the response head. */
function get(url: URL, target: CheckedAddress, signal: AbortSignal): Promise<IncomingMessage> {
  return requestPinned(url, target, {
    method: 'GET',
    headers: { 'user-agent': 'Scribe/0.1 (media download)', accept: '*/*', 'accept-encoding': 'identity' },
    signal,
  });
}

function describe(error: unknown): string {
  const { code, message } = error as NodeJS.ErrnoException;
  return code ?? message ?? String(error);
}

/**
 * Downloads `url` into `destPath` (created or truncated). Failures are DownloadError; a local file-system error
 * (the destination cannot be written) is the server's own fault and is rethrown as it is.
 */
export async function downloadToFile(url: string, destPath: string, options: DownloadOptions): Promise<DownloadResult> {
  const maxRedirects = options.maxRedirects ?? 5;
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, options.timeoutMs);
  const onCallerAbort = () => controller.abort(options.signal?.reason);
  if (options.signal?.aborted) onCallerAbort();
  else options.signal?.addEventListener('abort', onCallerAbort, { once: true });

  let current: URL | undefined;
  let fileError: unknown;
  let fileStarted = false;
  try {
    try {
      current = new URL(url);
    } catch {
      throw new DownloadError('refused', 'The URL is not a valid absolute URL.', url);
    }
    for (let redirects = 0; ; redirects += 1) {
      let target: CheckedAddress;
      try {
        target = await abortable(options.guard.check(current), controller.signal);
      } catch (error) {
        if (!(error instanceof UrlRefusedError)) throw error;
        throw new DownloadError(
          error.reason === 'dns' ? 'network' : 'refused',
          error.message,
          current.href,
          undefined,
          error.detail,
        );
      }
      const response = await get(current, target, controller.signal);
      const status = response.statusCode ?? 0;
      if (REDIRECT_STATUSES.has(status)) {
        response.destroy();
        const location = response.headers.location;
        if (!location) {
          throw new DownloadError('http_status', `HTTP ${status} redirect without a Location.`, current.href, status);
        }
        if (redirects >= maxRedirects) {
          throw new DownloadError('too_many_redirects', `More than ${maxRedirects} redirects.`, current.href);
        }
        try {
          current = new URL(location, current);
        } catch {
          throw new DownloadError('refused', 'The server redirected to an invalid URL.', current.href);
        }
        continue;
      }
      if (status < 200 || status >= 300) {
        response.destroy();
        throw new DownloadError('http_status', `${current.host} answered HTTP ${status}.`, current.href, status);
      }
      const href = current.href;
      const tooLarge = () =>
        new DownloadError('too_large', `The file is larger than ${megabytes(options.maxBytes)} MB.`, href);
      const declared = Number(response.headers['content-length']);
      if (Number.isFinite(declared) && declared > options.maxBytes) {
        response.destroy();
        throw tooLarge();
      }

      let size = 0;
      const limit = new Transform({
        transform(chunk: Buffer, _encoding, callback) {
          size += chunk.length;
          if (size > options.maxBytes) callback(tooLarge());
          else callback(null, chunk);
        },
      });
      fileStarted = true;
      const file = createWriteStream(destPath, { mode: 0o600 });
      // Only the file system's own errors (open, write): an abort also destroys the stream with an AbortError.
      file.on('error', (error: NodeJS.ErrnoException) => {
        if (error.syscall) fileError = error;
      });
      await pipeline(response, limit, file, { signal: controller.signal });
      return { size, contentType: response.headers['content-type'] ?? null, finalUrl: current.href };
    }
  } catch (error) {
    if (fileStarted) await rm(destPath, { force: true });
    if (fileError !== undefined && error === fileError) throw error;
    const at = current?.href ?? url;
    if (timedOut) {
      const seconds = Math.round(options.timeoutMs / 100) / 10;
      throw new DownloadError('timeout', `The download did not finish within ${seconds} s.`, at);
    }
    if (error instanceof DownloadError) throw error;
    if (options.signal?.aborted) throw new DownloadError('aborted', 'The download was cancelled.', at);
    throw new DownloadError('network', `The download failed (${describe(error)}).`, at);
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onCallerAbort);
  }
}
