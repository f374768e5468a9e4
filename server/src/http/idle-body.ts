// A request body that stops arriving is abandoned after SCRIBE_IDLE_BODY_TIMEOUT_MS: its connection is closed (the
// client is the one that stalled; nothing can be answered mid-body) and the reader of the body sees an aborted
// request, which the error handler logs as a client that went away. Watched by the socket's byte count rather than
// by a 'data' listener (that would start the body flowing before its reader) or the socket's own timeout (Node's
// keep-alive timer uses it between requests). A body the server has not started reading yet (authentication waits on
// the database) counts as idle too once the kernel's buffers are full; the database's own bounds are far shorter.
import type { Context, Next } from 'koa';
import type { Logger } from 'pino';

export function idleBodyTimeout(ms: number, logger: Logger) {
  return async function abandonIdleBody(ctx: Context, next: Next): Promise<void> {
    const { req, res } = ctx;
    const hasBody = Number(req.headers['content-length'] || 0) > 0 || req.headers['transfer-encoding'] !== undefined;
    if (ms <= 0 || !hasBody) return next();
    let seen = req.socket.bytesRead;
    let idleSince = performance.now();
    const check = setInterval(
      () => {
        if (req.complete || req.destroyed) return stop();
        const read = req.socket.bytesRead;
        if (read !== seen) {
          seen = read;
          idleSince = performance.now();
          return;
        }
        if (performance.now() - idleSince < ms) return;
        logger.info(
          { requestId: ctx.state.requestId, path: ctx.path, idleMs: ms },
          'request body idle for too long; connection closed',
        );
        stop();
        req.destroy();
      },
      Math.max(50, Math.floor(ms / 4)),
    );
    check.unref();
    const stop = () => clearInterval(check);
    req.once('end', stop);
    req.once('close', stop);
    res.once('close', stop);
    return next();
  };
}
