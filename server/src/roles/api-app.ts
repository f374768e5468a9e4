// The HTTP face of an API node (roles `all` and `api`): the middleware in order, then the contract's operations.
// Every answer gets X-Request-Id first; the access log wraps the error handler (a thrown error has a status only once
// the handler has rendered it, and the log line carries the status sent); the docs site sits outside the contract's
// routes; the dispatch routes, authenticates, limits, validates and runs the operation's handler.
import { join } from 'node:path';
import Koa from 'koa';
import type { OpenAPIBackend } from 'openapi-backend';
import type { Logger } from 'pino';
import type { AccountStore } from '../accounts/store.ts';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import { serveDocs } from '../docs/serve-docs.ts';
import { accessLog } from '../http/access-log.ts';
import { clientAddress, parseTrustedProxies } from '../http/client-address.ts';
import { createRouter, warmRequestValidators } from '../http/contract.ts';
import { dispatch } from '../http/dispatch.ts';
import { errorHandler } from '../http/error-handler.ts';
import { idleBodyTimeout } from '../http/idle-body.ts';
import { createIdempotencyStore } from '../http/idempotency.ts';
import type { Handlers } from '../http/operation.ts';
import { createFailedAuthLimit, type RateLimit } from '../http/rate-limit.ts';
import { requestId } from '../http/request-id.ts';
import { createRequestValidator } from '../http/request-validation.ts';
import { securityHeaders } from '../http/security-headers.ts';
import { createSignatureNonces } from '../http/signature-nonces.ts';
import type { KeyService } from '../keys/service.ts';
import type { SpaceCheck } from '../media/free-space.ts';
import type { SecretKeys } from '../secrets/secret-box.ts';

export interface ApiAppDeps {
  config: Config;
  api: OpenAPIBackend;
  db: Database;
  handlers: Handlers;
  accounts: AccountStore;
  keys: KeyService;
  rateLimit: RateLimit;
  now: () => number;
  logger: Logger;
  /** The data dir's free space, checked before an upload is read. */
  space: SpaceCheck;
  /** The server key: stored idempotent answers are sealed with it. */
  secretKeys: SecretKeys;
}

export function createApiApp(deps: ApiAppDeps): Koa {
  const { config, api, db, handlers, accounts, keys, rateLimit, now, logger, space, secretKeys } = deps;
  // In production the request validators are ready before the first requests (compiled in the background); tests and
  // development compile them on first use and spare every process the CPU.
  if (config.environment === 'production') warmRequestValidators(api);
  const koa = new Koa({ proxy: false });
  // What Koa reports outside the error handler: a connection that ended mid-request (the client hung up or stalled)
  // is an info line; anything else is logged as an error without reaching the client. Koa's own handler would print
  // each with its stack to stderr.
  koa.on('error', (err: Error & { code?: string }, ctx?: Koa.Context) => {
    const where = { requestId: ctx?.state.requestId, path: ctx?.path };
    if (
      ctx?.req.destroyed ||
      ctx?.req.complete === false ||
      err.code === 'ECONNRESET' ||
      err.code?.startsWith('HPE_')
    ) {
      logger.info({ ...where, reason: err.message }, 'client closed the connection before the request was complete');
    } else {
      logger.error({ ...where, err }, 'error outside a request handler');
    }
  });
  koa.use(requestId);
  koa.use(clientAddress(parseTrustedProxies(config.trustedProxies)));
  koa.use(securityHeaders);
  koa.use(accessLog(logger));
  koa.use(errorHandler(logger));
  koa.use(idleBodyTimeout(config.server.idleBodyTimeoutMs, logger));
  koa.use(serveDocs());
  koa.use(
    dispatch({
      api,
      router: createRouter(api),
      validateRequest: createRequestValidator(api),
      handlers,
      auth: {
        accounts,
        keys,
        adminToken: config.adminToken,
        now,
        nonces: createSignatureNonces(db),
        failedAuth: createFailedAuthLimit(db, config.failedAuth),
      },
      rateLimit,
      idempotency: createIdempotencyStore(db, secretKeys),
      validateResponses: config.validateResponses,
      logger,
      uploads: { dir: join(config.dataDir, 'uploads'), maxBytes: config.transcription.asyncMaxBytes, space },
    }),
  );
  return koa;
}
