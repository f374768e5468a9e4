// The HTTP face of a `worker` process: GET /health and nothing else. Every other request gets the contract's 404
// `not_found` body (405 with Allow for another method on /health), with X-Request-Id like every answer of the API
// nodes, so a load balancer that sends a client here by mistake gets a clear answer rather than a hang.
import Koa, { type Context } from 'koa';
import type { OpenAPIBackend } from 'openapi-backend';
import type { Logger } from 'pino';
import { accessLog } from '../http/access-log.ts';
import { ApiError, errors } from '../http/api-error.ts';
import { errorHandler } from '../http/error-handler.ts';
import type { Handlers } from '../http/operation.ts';
import { requestId } from '../http/request-id.ts';

export interface HealthOnlyDeps {
  api: OpenAPIBackend;
  getHealth: Handlers['getHealth'];
  /** Check the body against the contract before it leaves (test and development, as on the API nodes). */
  validateResponses: boolean;
  logger: Logger;
}

export function createHealthOnlyApp(deps: HealthOnlyDeps): Koa {
  const operation = deps.api.getOperation('getHealth');
  if (!operation) throw new Error('the contract has no getHealth operation');

  async function serveHealth(ctx: Context): Promise<void> {
    if (ctx.path !== '/health') throw errors.notFound(null, 'route');
    // HEAD is GET without the content (Koa leaves the body out), as on the API nodes.
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') throw errors.methodNotAllowed(['GET', 'HEAD']);
    ctx.state.operationId = 'getHealth';
    const reply = await deps.getHealth({
      operationId: 'getHealth',
      account: undefined,
      body: undefined,
      query: {} as never,
      path: undefined,
      headers: ctx.headers,
      requestId: ctx.state.requestId as string,
      signal: new AbortController().signal,
    });
    if (deps.validateResponses) {
      const check = deps.api.validateResponse(reply.body, operation!, reply.status);
      if (!check.valid) {
        deps.logger.error({ status: reply.status, errors: check.errors }, 'response violates the contract');
        throw new ApiError(500, 'internal_error', 'Response of getHealth violates the contract.');
      }
    }
    ctx.status = reply.status;
    ctx.body = reply.body;
  }

  const koa = new Koa({ proxy: false });
  koa.use(requestId);
  koa.use(accessLog(deps.logger)); // outside the error handler, so it logs the status sent (as in app.ts)
  koa.use(errorHandler(deps.logger));
  koa.use(serveHealth);
  return koa;
}
