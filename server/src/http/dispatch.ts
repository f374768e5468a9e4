// The one route of the app: match the request to a contract operation, authenticate by its security scheme, count
// it against the account's rate limit, read and validate the request against the contract, call the operation's
// handler and (outside production) validate the response against the contract before it leaves.
import { pipeline, type Readable } from 'node:stream';
import type { ErrorObject as AjvError } from 'ajv';
import type { Context } from 'koa';
import type { Logger } from 'pino';
import type { OpenAPIBackend } from 'openapi-backend';
import { ApiError, errors } from './api-error.ts';
import { authenticate, preauthenticateSigned, signatureCoversBody, type AuthDeps } from './auth.ts';
import type { AccountRow } from '../db/account-row.ts';
import type { SpaceCheck } from '../media/free-space.ts';
import { readMultipartUpload, removeUpload, type MultipartUpload } from '../media/multipart.ts';
import { mediaTypeOf, parseJsonBody, readRawBody } from './body.ts';
import { exclusiveFieldsError } from './exclusive-fields.ts';
import { formBody } from './form-body.ts';
import { DispatchedRequest } from './handler-request.ts';
import type { RouteMatch, Router } from './contract.ts';
import { requestHash, type IdempotencyOwner, type IdempotencyStore } from './idempotency.ts';
import type { HandlerRequest, Handlers, OperationId, Reply } from './operation.ts';
import type { RateLimit, RateLimitHeaders } from './rate-limit.ts';
import type { RequestValidator } from './request-validation.ts';

export interface DispatchDeps {
  api: OpenAPIBackend;
  router: Router;
  validateRequest: RequestValidator;
  handlers: Handlers;
  auth: AuthDeps;
  rateLimit: RateLimit;
  idempotency: IdempotencyStore;
  validateResponses: boolean;
  logger: Logger;
  /** Where multipart files are streamed to, and the size limit of operations without their own `x-limits`. */
  uploads: { dir: string; maxBytes: number; space?: SpaceCheck };
}

/**
 * The value a variant's `type` property is fixed to: the contract writes such literals as single-value enums (the form
 * every client generator turns into a literal type); `const` is read as well.
 */
function typeLiteralOf(variant: unknown): unknown {
  const type = (variant as { properties?: { type?: { const?: unknown; enum?: unknown[] } } }).properties?.type;
  if (type?.const !== undefined) return type.const;
  return type?.enum?.length === 1 ? type.enum[0] : undefined;
}

/**
 * For a body that is a `oneOf` of variants told apart by a `type` literal, the errors of the variant the client chose
 * are the useful ones (Ajv reports the first error of every variant).
 */
function errorsOfChosenVariant(found: AjvError[], operation: RouteMatch['operation'], body: unknown): AjvError[] {
  const schema = (operation.requestBody as { content?: Record<string, { schema?: { oneOf?: unknown[] } }> } | undefined)
    ?.content?.['application/json']?.schema;
  const type = (body as { type?: unknown } | undefined)?.type;
  if (!schema?.oneOf || typeof type !== 'string') return found;
  const index = schema.oneOf.findIndex((variant) => typeLiteralOf(variant) === type);
  if (index < 0)
    return [
      {
        instancePath: '/requestBody/type',
        schemaPath: '',
        keyword: 'enum',
        message: 'is not a known type',
        params: { allowedValues: [] },
      },
    ];
  const chosen = found.filter((e) => e.schemaPath.startsWith(`#/properties/requestBody/oneOf/${index}/`));
  return chosen.length > 0 ? chosen : found;
}

/** The value at a path of keys in a document (a body or a schema), or undefined. */
const walk = (root: unknown, path: string[]) =>
  path.reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], root);

/**
 * The same for a nested `oneOf`: the errors of the variant the client meant are the useful ones. The variant is the
 * one named by a `type` literal (chat `response_format`: `json_schema.name` missing rather than "json_schema is not a
 * known parameter" of the text variant), else the only one whose JSON type the value has (embeddings `input`: an
 * empty string inside the array is `input.1`, not "input must be string").
 */
function errorsOfNestedVariant(found: AjvError[], operation: RouteMatch['operation'], body: unknown): AjvError[] {
  const prefix = '#/properties/requestBody/';
  for (const oneOf of found.filter((e) => e.keyword === 'oneOf' && e.schemaPath.startsWith(prefix))) {
    const variants = walk(
      bodySchemaOf(operation, 'application/json'),
      oneOf.schemaPath.slice(prefix.length).split('/'),
    );
    if (!Array.isArray(variants)) continue;
    const type = (walk(body, oneOf.instancePath.split('/').slice(2)) as { type?: unknown } | undefined)?.type;
    const literals = variants.map(typeLiteralOf);
    // A `type` none of the variants has is that field's error (the Responses API's `reasoning` input item: not
    // "input.1.role is required" of the message variant), when every variant is named by one.
    if (
      typeof type === 'string' &&
      literals.every((literal) => typeof literal === 'string') &&
      !literals.includes(type)
    )
      return [
        {
          instancePath: `${oneOf.instancePath}/type`,
          schemaPath: `${oneOf.schemaPath}`,
          keyword: 'enum',
          message: 'is not a known type',
          params: { allowedValues: literals },
        },
      ];
    const variantOf = (e: AjvError) => Number(e.schemaPath.slice(oneOf.schemaPath.length + 1).split('/')[0]);
    const wrongType = new Set(
      found.filter((e) => e.keyword === 'type' && e.instancePath === oneOf.instancePath).map(variantOf),
    );
    const byJsonType = variants.map((_, i) => i).filter((i) => !wrongType.has(i));
    const index =
      typeof type === 'string'
        ? variants.findIndex((variant) => typeLiteralOf(variant) === type)
        : byJsonType.length === 1
          ? byJsonType[0]!
          : -1;
    const chosen = found.filter((e) => e.schemaPath.startsWith(`${oneOf.schemaPath}/${index}/`));
    if (index >= 0 && chosen.length > 0) return chosen;
  }
  return found;
}

/**
 * A wrong `type` of an object is its error, before the fields that type would have needed (a Responses tool of type
 * `web_search`: "tools.0.type must be equal to constant", not "tools.0.name is required"). Validation stops at its
 * first error, and `required` is checked before `properties`, so the type is checked here.
 */
function typeErrorFirst(found: AjvError[], operation: RouteMatch['operation'], body: unknown): AjvError[] {
  const [first] = found;
  const prefix = '#/properties/requestBody/';
  if (first?.keyword !== 'required' || !first.schemaPath.startsWith(prefix)) return found;
  const schemaPath = first.schemaPath.slice(prefix.length).split('/').slice(0, -1);
  const allowed = (
    walk(bodySchemaOf(operation, 'application/json'), schemaPath) as
      { properties?: { type?: { enum?: unknown[] } } } | undefined
  )?.properties?.type?.enum;
  const type = (walk(body, first.instancePath.split('/').slice(2)) as { type?: unknown } | undefined)?.type;
  if (!allowed || type === undefined || allowed.includes(type)) return found;
  const wrongType = {
    instancePath: `${first.instancePath}/type`,
    schemaPath: `${first.schemaPath.slice(0, -'/required'.length)}/properties/type/enum`,
    keyword: 'enum',
    message: 'is not a known type',
    params: { allowedValues: allowed },
  };
  return [wrongType, ...found];
}

/** Turns a validation error into the contract's 400 with `param` as a dotted path (404 for an unknown model). */
function validationError(error: AjvError, operation: RouteMatch['operation'], path: string, body: unknown): ApiError {
  const [, location = '', ...rest] = error.instancePath.split('/');
  const parts = rest.map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (error.keyword === 'required') {
    const missing = String(error.params.missingProperty);
    if (location === '' && missing === 'requestBody') return errors.missingParameter('body');
    return errors.missingParameter([...parts, missing].join('.'));
  }
  if (error.keyword === 'additionalProperties') {
    const extra = [...parts, String(error.params.additionalProperty)].join('.');
    return errors.invalidParameter(extra, `${extra} is not a known parameter.`);
  }
  const param = parts.join('.') || (location === 'requestBody' ? 'body' : location);
  if (error.keyword === 'enum' && parts.at(-1) === 'model' && path.startsWith('/v3/') && operation.responses?.['404']) {
    const model = parts.reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], body);
    return new ApiError(404, 'model_not_found', `The model ${String(model)} does not exist.`, param);
  }
  // A single-value enum is how the contract writes a literal; a wrong value is told what it was told when the
  // literal was a `const`, so the message does not depend on how the document spells it.
  const allowed = error.keyword === 'enum' ? (error.params.allowedValues as unknown[] | undefined) : undefined;
  // Any other enum says what it allows, so a client learns the right value from the error alone.
  const message =
    allowed?.length === 1
      ? 'must be equal to constant'
      : allowed && allowed.length > 1
        ? `must be one of ${allowed.map(String).join(', ')}`
        : (error.message ?? 'is invalid');
  return errors.invalidParameter(param, `${param} ${message}.`);
}

/** The methods a path answers: its operations' methods, with HEAD after GET (every GET operation answers HEAD). */
export function allowedMethods(router: Router, path: string): string[] {
  return router.methodsOf(path).flatMap((method) => (method === 'GET' ? ['GET', 'HEAD'] : [method]));
}

function notRouted(router: Router, path: string): ApiError {
  const allowed = allowedMethods(router, path);
  if (allowed.length > 0) return errors.methodNotAllowed(allowed);
  // OpenAI's base URL ends in `/v1`; the same path under `/v3` is what such a client meant to call.
  const meant = path.startsWith('/v1/') ? `/v3/${path.slice('/v1/'.length)}` : undefined;
  if (meant && router.methodsOf(meant).length > 0) {
    return new ApiError(
      404,
      'not_found',
      `No such route. OpenAI-style clients take the base URL ending in /v3 (this server serves ${meant}).`,
    );
  }
  return errors.notFound(null, 'route');
}

/**
 * HEAD is GET without the content (RFC 9110 section 9.3.2): it runs the GET operation, authentication, rate limit
 * and validation included, so the status and headers are the ones GET would give; Koa then leaves the body out.
 */
const routedMethod = (method: string): string => (method === 'HEAD' ? 'GET' : method);

/**
 * Streams a multipart body's file to disk under the operation's size limit. A function of the module, not a closure
 * made per request: the server runs through tsx, whose named closures cost a property definition each time one is made.
 */
function readUpload(ctx: Context, operation: RouteMatch['operation'], uploads: DispatchDeps['uploads']) {
  return readMultipartUpload(ctx.req, {
    dir: uploads.dir,
    maxFileBytes: operation['x-limits']?.max_file_bytes ?? uploads.maxBytes,
    space: uploads.space,
  });
}

export function dispatch(deps: DispatchDeps) {
  async function handleOperation(ctx: Context): Promise<void> {
    const route = deps.router.match(routedMethod(ctx.method), ctx.path);
    if (!route) throw notRouted(deps.router, ctx.path);
    const { operation, plan } = route;
    const { operationId } = plan;
    ctx.state.operationId = operationId;

    const declared = plan.mediaTypes;
    const mediaType = mediaTypeOf(ctx);
    const jsonBody = plan.acceptsJson && mediaType === 'application/json';
    // A version 2 signature covers the body, which is then read before the signature can be checked, but only once
    // the headers have passed every check that needs no body. Every other body is read after authentication.
    const coversBody = signatureCoversBody(ctx, plan.scheme);
    if (coversBody) await preauthenticateSigned(ctx, deps.auth);
    let rawBody = jsonBody && coversBody ? await readRawBody(ctx) : undefined;

    const multipart = plan.acceptsMultipart && mediaType === 'multipart/form-data';
    // A signed multipart body is hashed as it streams to disk, and removed again if the signature does not verify.
    const signedUpload = multipart && coversBody ? await readUpload(ctx, operation, deps.uploads) : undefined;
    let account: AccountRow | undefined;
    let rateHeaders: RateLimitHeaders | undefined;
    try {
      account = await authenticate(ctx, deps.auth, plan.scheme, operationId, rawBody, signedUpload?.bodySha256);
      rateHeaders = account ? await deps.rateLimit.consume(account.id) : undefined;
    } catch (error) {
      await removeUpload(signedUpload);
      throw error;
    }
    if (rateHeaders) ctx.state.rateLimitHeaders = rateHeaders;
    if (jsonBody && !coversBody) rawBody = await readRawBody(ctx);

    // An optional body may be omitted altogether: no Content-Type and nothing sent.
    if (declared.length > 0 && !declared.includes(mediaType)) {
      const sentBody =
        mediaType !== '' || Number(ctx.get('Content-Length') || 0) > 0 || ctx.get('Transfer-Encoding') !== '';
      if (sentBody) throw errors.unsupportedMediaType(mediaType, [...declared]);
    }
    // A multipart form is read after authentication: its file streams to disk under the operation's size limit.
    const upload = signedUpload ?? (multipart ? await readUpload(ctx, operation, deps.uploads) : undefined);
    if (!upload) return handleBody(ctx, route, account, rawBody, mediaType, undefined, rateHeaders);
    try {
      return await handleBody(ctx, route, account, rawBody, mediaType, upload, rateHeaders);
    } finally {
      await removeUpload(upload);
    }
  }

  async function handleBody(
    ctx: Context,
    { operation, plan, params }: RouteMatch,
    account: AccountRow | undefined,
    rawBody: Buffer | undefined,
    mediaType: string,
    upload: MultipartUpload | undefined,
    rateHeaders: RateLimitHeaders | undefined,
  ): Promise<void> {
    const body = upload
      ? formBody(
          { ...upload.fields, ...upload.lists },
          upload.file ? { field: 'file', filename: upload.file.filename } : undefined,
          multipartSchemaOf(operation),
        )
      : rawBody
        ? parseJsonBody(rawBody)
        : undefined;
    const result = deps.validateRequest(operation, plan, {
      params,
      // Koa parses even an empty query string (a URLSearchParams per request); most requests have none.
      query: ctx.querystring === '' ? noQuery : ctx.query,
      headers: ctx.headers,
      body,
      mediaType,
    });
    if (result.errors.length > 0) {
      const exclusive = exclusiveFieldsError(result.errors, bodySchemaOf(operation, mediaType));
      if (exclusive) throw exclusive;
      const [first] = typeErrorFirst(
        errorsOfNestedVariant(errorsOfChosenVariant(result.errors, operation, body), operation, body),
        operation,
        body,
      );
      throw validationError(first!, operation, ctx.path, body);
    }
    // Query values arrive as strings; validation coerced a copy to the contract's types, which handlers receive.
    const { query } = result;

    const { operationId } = plan;
    const handler = deps.handlers[operationId] as (
      input: HandlerRequest<OperationId>,
    ) => ReturnType<Handlers[OperationId]>;
    const request = new DispatchedRequest(
      operationId,
      account,
      body as never,
      query as never,
      params as never,
      ctx.headers,
      ctx.state.requestId as string,
      ctx.res,
    );
    if (upload?.file) request.upload = upload.file;
    // Every operation that declares the key honours it: an account's key is its own, the admin surface's the operator's.
    const idempotencyKey = plan.acceptsIdempotencyKey ? ctx.get('Idempotency-Key') : '';
    const owner: IdempotencyOwner | undefined = account
      ? { accountId: account.id }
      : plan.scheme === 'admin'
        ? 'admin'
        : undefined;
    const reply =
      idempotencyKey && owner
        ? await runOnce(
            deps.idempotency,
            owner,
            idempotencyKey,
            operationId,
            upload ?? rawBody,
            () => handler(request),
            ctx,
          )
        : await handler(request);

    // A server-sent event reply (chat `stream: true`) is a stream its handler writes while it generates: piped as it
    // comes (its events are checked by the tests' contract check, not here).
    const contentType = reply.headers?.['Content-Type'] ?? 'application/json';
    if (contentType.startsWith('text/event-stream')) {
      ctx.status = reply.status;
      setHeaders(ctx, rateHeaders, reply.headers);
      // Piped here rather than by Koa: a client that leaves mid-stream is normal (the handler saw the abort), not an
      // error for Koa to print.
      ctx.respond = false;
      pipeline(reply.body as unknown as Readable, ctx.res, () => undefined);
      return;
    }
    // Text replies (subtitles) are strings by their schemas and binary ones (PDF) buffers; the JSON ones are checked
    // against the contract.
    const textReply = !contentType.startsWith('application/json');
    const binaryReply = contentType.startsWith('application/pdf');
    if (
      deps.validateResponses &&
      textReply &&
      !(binaryReply ? Buffer.isBuffer(reply.body) : typeof reply.body === 'string')
    ) {
      throw new ApiError(
        500,
        'internal_error',
        `Response of ${operationId} is not ${binaryReply ? 'binary' : 'text'}.`,
      );
    }
    if (deps.validateResponses && !textReply) {
      const check = deps.api.validateResponse(reply.body, operation, reply.status);
      if (!check.valid) {
        deps.logger.error(
          { operationId, status: reply.status, errors: check.errors },
          'response violates the contract',
        );
        throw new ApiError(
          500,
          'internal_error',
          `Response of ${operationId} violates the contract: ${JSON.stringify(check.errors?.[0])}`,
        );
      }
    }
    ctx.status = reply.status;
    setHeaders(ctx, rateHeaders, reply.headers);
    if (plan.noStore) ctx.set('Cache-Control', 'no-store');
    ctx.body = reply.body as object;
  }

  return handleOperation;
}

function bodySchemaOf(operation: RouteMatch['operation'], mediaType: string) {
  return (
    operation.requestBody as
      | {
          content?: Record<
            string,
            { schema?: { properties?: Record<string, { type?: string }>; oneOf?: { required?: string[] }[] } }
          >;
        }
      | undefined
  )?.content?.[mediaType]?.schema;
}

const multipartSchemaOf = (operation: RouteMatch['operation']) => bodySchemaOf(operation, 'multipart/form-data');

/** The query of a request without one (validation copies it before coercing). */
const noQuery: Readonly<Record<string, never>> = Object.freeze({});

/** The rate-limit headers, then the reply's own (a reply's header of the same name wins). */
function setHeaders(
  ctx: Context,
  rateHeaders: RateLimitHeaders | undefined,
  replyHeaders: Record<string, string> | undefined,
): void {
  if (rateHeaders) for (const name in rateHeaders) ctx.set(name, rateHeaders[name as keyof RateLimitHeaders]);
  if (replyHeaders) for (const name in replyHeaders) ctx.set(name, replyHeaders[name]!);
}

async function runOnce(
  store: IdempotencyStore,
  owner: IdempotencyOwner,
  key: string,
  operationId: OperationId,
  body: Buffer | MultipartUpload | undefined,
  run: () => Promise<Reply<OperationId>>,
  ctx: Context,
): Promise<Reply<OperationId>> {
  const stored = await store.claim(owner, key, operationId, requestHash(operationId, body));
  if (stored) {
    ctx.set('Idempotent-Replayed', 'true');
    return stored as Reply<OperationId>;
  }
  try {
    const reply = await run();
    // A streamed answer cannot be replayed: the key is released and a retry runs again.
    if (reply.headers?.['Content-Type']?.startsWith('text/event-stream')) {
      await store.abandon(owner, key);
      return reply;
    }
    await store.complete(owner, key, { status: reply.status, body: reply.body, headers: reply.headers ?? {} });
    return reply;
  } catch (error) {
    await store.abandon(owner, key);
    throw error;
  }
}
