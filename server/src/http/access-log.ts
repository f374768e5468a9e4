// One structured log line per request, with the request id, operation, status and duration. It runs outside the error
// handler, so `status` is the one sent, also when a thrown error decided it.
import type { Context, Next } from 'koa';
import type { Logger } from 'pino';

export function accessLog(logger: Logger) {
  return async function logRequest(ctx: Context, next: Next): Promise<void> {
    const started = performance.now();
    try {
      await next();
    } finally {
      logger.info(
        {
          requestId: ctx.state.requestId,
          client: ctx.state.clientAddress,
          method: ctx.method,
          path: ctx.path,
          operationId: ctx.state.operationId,
          status: ctx.status,
          ms: Math.round((performance.now() - started) * 10) / 10,
        },
        'request',
      );
    }
  };
}
