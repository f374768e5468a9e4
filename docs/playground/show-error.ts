// Every failure is shown in words: the contract's error (code and message) when the server sent one, the close code
// of a dropped stream, or the browser's reason (no microphone, server unreachable) — never a blank area.
import { ScribeApiError, StreamError } from '../../client/src/index.ts';

export function describeError(error: unknown): string {
  if (error instanceof StreamError) {
    if (error.frame) return `${error.frame.error.code}: ${error.frame.error.message}`;
    return `The stream closed unexpectedly (close code ${error.close.code}${error.close.reason ? `, ${error.close.reason}` : ''}).`;
  }
  if (error instanceof ScribeApiError) {
    const body = error.body;
    if (body && typeof body.error === 'object') return `${body.error.code}: ${body.error.message}`;
    if (body && typeof body.error === 'string') return `${body.error}: ${body.message}`;
    return error.status === 0
      ? `The server did not answer (${error.message}).`
      : `HTTP ${error.status}: ${error.message}`;
  }
  // fetch() rejects with a TypeError when no answer came at all (the connection dropped, the server is down).
  if (error instanceof TypeError && /fetch|network/i.test(error.message))
    return `The server did not answer (${error.message}).`;
  if (error instanceof DOMException && error.name === 'NotAllowedError') return 'The microphone was not allowed.';
  if (error instanceof DOMException && error.name === 'NotFoundError') return 'No microphone was found.';
  return error instanceof Error ? error.message : String(error);
}

export function showError(element: HTMLElement, error: unknown): void {
  element.textContent = describeError(error);
  element.hidden = false;
}

export function clearError(element: HTMLElement): void {
  element.textContent = '';
  element.hidden = true;
}
