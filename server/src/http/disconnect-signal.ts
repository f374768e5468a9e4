// The AbortSignal a handler is given for "the client went away". It is made when a handler first asks for it rather
// than for every request: an AbortController with its signal and a 'close' listener on each response were ≈ 3 % of
// the CPU of a status read, and only the handlers that run long (chat, recognition in the request) look at it.
import type { ServerResponse } from 'node:http';

/**
 * A signal that aborts when `res` closes before it was finished. Asked for after that already happened, it is born
 * aborted, so a late first look sees the same as a listener attached at the start would have.
 */
export function disconnectSignal(res: ServerResponse): AbortSignal {
  const controller = new AbortController();
  // The client is gone when the response closes before it was finished (request 'close' fires after the body).
  const onClose = () => {
    if (!res.writableFinished) controller.abort(new Error('client disconnected'));
  };
  if (res.closed) onClose();
  else res.once('close', onClose);
  return controller.signal;
}
