// Inside the request id and the access log (which logs the status set here): turns every thrown error into the
// contract's error body and never lets a stack trace leave the server. A failing dependency (the database not
// answering within its bound, a full disk) is the contract's 503 with Retry-After and a warning without a stack; a
// client that hung up mid-request is an info line with status 499 (nothing can be sent to it); anything else is
// logged with its stack and masked as 500 internal_error.
import type { Context, Next } from 'koa';
import type { Logger } from 'pino';
import { ApiError, errors } from './api-error.ts';
import { challengeFor } from './auth-challenge.ts';
import { faultSummary, infrastructureApiError } from './infrastructure-errors.ts';
import { renderError, versionOfPath } from './render-error.ts';

/** The status the access log shows for a request whose client went away before the answer (nginx's convention). */
export const CLIENT_CLOSED_REQUEST = 499;

/** Whether the client closed the connection before its request was answered. */
function clientGone(ctx: Context): boolean {
  return (ctx.req.destroyed && !ctx.req.complete) || (ctx.res.destroyed && !ctx.res.writableFinished);
}

export function errorHandler(logger: Logger) {
  return async function handleErrors(ctx: Context, next: Next): Promise<void> {
    try {
      await next();
    } catch (thrown) {
      if (!(thrown instanceof ApiError) && clientGone(ctx)) {
        logger.info(
          { requestId: ctx.state.requestId, path: ctx.path, reason: faultSummary(thrown).message },
          'client closed the connection before the request was complete',
        );
        ctx.status = CLIENT_CLOSED_REQUEST;
        return;
      }
      const infrastructure = infrastructureApiError(thrown);
      if (infrastructure) {
        logger.warn(
          { requestId: ctx.state.requestId, path: ctx.path, code: infrastructure.code, cause: faultSummary(thrown) },
          'dependency unavailable',
        );
      } else if (!(thrown instanceof ApiError)) {
        logger.error({ err: thrown, requestId: ctx.state.requestId, path: ctx.path }, 'unhandled error');
      }
      const error = thrown instanceof ApiError ? thrown : (infrastructure ?? errors.internal());
      ctx.status = error.status;
      const rateLimitHeaders = (ctx.state.rateLimitHeaders ?? {}) as Record<string, string>;
      for (const [name, value] of Object.entries({ ...rateLimitHeaders, ...error.headers })) ctx.set(name, value);
      if (error.status === 401) ctx.set('WWW-Authenticate', challengeFor(ctx.path));
      ctx.body = renderError(error, versionOfPath(ctx.path));
    }
  };
}
