// Inside the request id and the access log (which logs the status set here): turns every thrown error into the
// contract's error body and never lets a stack trace leave the server (unknown errors are logged and masked as 500
// internal_error).
import type { Context, Next } from 'koa';
import type { Logger } from 'pino';
import { ApiError, errors } from './api-error.ts';
import { renderError, versionOfPath } from './render-error.ts';

export function errorHandler(logger: Logger) {
  return async function handleErrors(ctx: Context, next: Next): Promise<void> {
    try {
      await next();
    } catch (thrown) {
      const error = thrown instanceof ApiError ? thrown : errors.internal();
      if (!(thrown instanceof ApiError)) {
        logger.error({ err: thrown, requestId: ctx.state.requestId, path: ctx.path }, 'unhandled error');
      }
      ctx.status = error.status;
      const rateLimitHeaders = (ctx.state.rateLimitHeaders ?? {}) as Record<string, string>;
      for (const [name, value] of Object.entries({ ...rateLimitHeaders, ...error.headers })) ctx.set(name, value);
      ctx.body = renderError(error, versionOfPath(ctx.path));
    }
  };
}
