// Mutants of the error tables: an error answered with another code, type or status than the document pairs with
// it (the v3 status map and code table, the v2 kinds), the Retry-After header in another form, and the v2 body in
// another shape. Each finds its error by code (or kind), so it breaks that one row and leaves the others.
import { json, withJson, type Mutant, type ProxyRequest, type ProxyResponse } from '../proxy.ts';
import { header, v3Code, v3Error, type V3Error, EX, STATEFUL, only } from './operators.ts';

/** A v2 error of this kind, with another kind and/or another status. */
const v2Kind =
  (kind: string, to: { kind?: string; status?: number }) =>
  (_q: ProxyRequest, r: ProxyResponse): ProxyResponse | undefined => {
    const value = json(r) as { error?: unknown } | undefined;
    if (value?.error !== kind) return undefined;
    return withJson(r, { ...value, error: to.kind ?? kind }, to.status ?? r.status);
  };

const keep = () => undefined;

/** The 409 of a webhook update (a blocked account's), edited. */
const onWebhookUpdate409 =
  (edit: (error: V3Error) => void) =>
  (q: ProxyRequest, r: ProxyResponse): ProxyResponse | undefined => {
    const error = v3Error(r);
    if (q.operation?.id !== 'updateWebhook' || r.status !== 409 || !error) return undefined;
    edit(error);
    return withJson(r, { error });
  };

const code = (name: string, rules: string[], args: string[] | undefined, response: Mutant['response']): Mutant => ({
  name,
  category: 'errors',
  rules,
  // without args of its own, the whole stateful phase: the scenarios that provoke an error need more operations
  // than the error's own scope (a blocked account is blocked and unblocked, a task is created and polled)
  args: args ?? STATEFUL,
  response,
});

const V2_SCENARIO = [
  ...STATEFUL,
  ...only('createV2Transcription', 'getV2Transcription', 'downloadV2TranscriptionResult'),
];

const BLOCKED = [
  ...STATEFUL,
  ...only(
    'blockAccount',
    'unblockAccount',
    'listModels',
    'createV2Transcription',
    'getV2Transcription',
    'getBillingUsage',
  ),
];
const WEBHOOK_UPDATE = [
  ...STATEFUL,
  ...only('createWebhook', 'updateWebhook', 'blockAccount', 'unblockAccount', 'listModels'),
];
const CONCURRENT = [
  ...STATEFUL,
  ...only('createAsyncTranscription', 'cancelTranscription', 'getTranscriptionStatus', 'createWebhook'),
];
// the free-quota scenario (the one that meets 402 INSUFFICIENT_FUNDS on the chat) also asks which chat models are
// listed, reads the balance and takes it to 0: without those operations it is not run
const V2_CHAT = [
  ...STATEFUL,
  ...only(
    'createV2Transcription',
    'getV2Transcription',
    'createV2TranscriptChatCompletion',
    'getBillingUsage',
    'listModels',
    'getAccount',
    'topUpAccount',
  ),
];

export const ERRORS: Mutant[] = [
  // the v3 code table, code by code
  code(
    'key_limit_exceeded answered 400',
    ['errors.code-status.key-limit-exceeded-409', 'auth.v3.key-limit-100', 'limits.keys.100'],
    [...STATEFUL, ...only('createApiKey')],
    v3Code('key_limit_exceeded', keep, 400),
  ),
  code(
    'key_limit_exceeded coded invalid_request',
    ['errors.code.key-limit-exceeded'],
    [...STATEFUL, ...only('createApiKey')],
    v3Code('key_limit_exceeded', (e) => (e.code = 'invalid_request')),
  ),
  code(
    'insufficient_balance answered 400',
    ['errors.code-status.insufficient-balance-402', 'billing.insufficient-402'],
    [...STATEFUL, ...only('createAsyncTranscription', 'getTranscriptionStatus', 'calculatePrice')],
    v3Code('insufficient_balance', keep, 400),
  ),
  code(
    'a 402 typed invalid_request_error',
    ['errors.status-map.402'],
    [...STATEFUL, ...only('createAsyncTranscription', 'getTranscriptionStatus', 'calculatePrice')],
    v3Code('insufficient_balance', (e) => (e.type = 'invalid_request_error')),
  ),
  code(
    'a blocked account answered 401 user_blocked',
    ['auth.v3.blocked-403', 'errors.code-status.user-blocked-403'],
    BLOCKED,
    v3Code('user_blocked', keep, 401),
  ),
  code(
    'a blocked account coded account_blocked',
    ['errors.code.user-blocked'],
    BLOCKED,
    v3Code('user_blocked', (e) => (e.code = 'account_blocked')),
  ),
  code(
    'a 403 typed authentication_error',
    ['errors.status-map.403'],
    BLOCKED,
    v3Code('user_blocked', (e) => (e.type = 'authentication_error')),
  ),
  code(
    'a 409 typed conflict_error',
    ['errors.status-map.409'],
    WEBHOOK_UPDATE,
    onWebhookUpdate409((e) => (e.type = 'conflict_error')),
  ),
  code(
    'invalid_api_key coded unauthorized',
    ['errors.code.invalid-api-key'],
    [...EX, ...only('listWebhooks')],
    v3Code('invalid_api_key', (e) => (e.code = 'unauthorized')),
  ),
  code(
    'rate_limit_exceeded coded too_many_requests',
    ['errors.code.rate-limit-exceeded'],
    [...STATEFUL, ...only('listModels', 'getBillingUsage')],
    v3Code('rate_limit_exceeded', (e) => (e.code = 'too_many_requests')),
  ),
  code(
    'rate_limit_exceeded answered 503',
    ['errors.code-status.rate-limit-exceeded-429'],
    [...STATEFUL, ...only('listModels', 'getBillingUsage')],
    v3Code('rate_limit_exceeded', (e) => (e.type = 'server_error'), 503),
  ),
  code(
    'a 429 typed invalid_request_error',
    ['errors.status-map.429'],
    [...STATEFUL, ...only('listModels', 'getBillingUsage')],
    v3Code('rate_limit_exceeded', (e) => (e.type = 'invalid_request_error')),
  ),
  code(
    'too_many_concurrent_jobs coded rate_limit_exceeded',
    ['errors.code.too-many-concurrent-jobs'],
    CONCURRENT,
    v3Code('too_many_concurrent_jobs', (e) => (e.code = 'rate_limit_exceeded')),
  ),
  code(
    'too_many_concurrent_jobs answered 409',
    ['errors.code-status.too-many-concurrent-jobs-429', 'limits.concurrent-jobs'],
    CONCURRENT,
    v3Code('too_many_concurrent_jobs', (e) => (e.type = 'invalid_request_error'), 409),
  ),
  code(
    'unsupported_format coded invalid_file',
    ['errors.code.unsupported-format'],
    [...STATEFUL, ...only('createSyncTranscription')],
    v3Code('unsupported_format', (e) => (e.code = 'invalid_file')),
  ),
  code(
    'model_not_found coded not_found',
    ['errors.code.model-not-found', 'errors.code-status.model-not-found-404'],
    [...STATEFUL, ...only('createChatCompletion', 'calculatePrice')],
    v3Code('model_not_found', (e) => (e.code = 'not_found')),
  ),
  code(
    'idempotency_key_reused answered 422',
    ['errors.code-status.idempotency-key-reused-409', 'api.idempotency-reused-409'],
    [...STATEFUL, ...only('createWebhook')],
    v3Code('idempotency_key_reused', keep, 422),
  ),
  code(
    'unsupported_media_type coded invalid_request',
    ['errors.status-map.415', 'stt.sync.json-body-415'],
    ['--phases', 'examples,negative,stateful', ...only('createSyncTranscription')],
    v3Code('unsupported_media_type', (e) => (e.code = 'invalid_request')),
  ),
  code('a wrong method answered 400', ['errors.status-map.405'], [...EX, ...only('listApiKeys')], (_q, r) =>
    r.status === 405 ? { ...r, status: 400 } : undefined,
  ),
  code(
    'an error without its type',
    ['errors.v3.object-fields'],
    ['--phases', 'negative', ...only('calculatePrice')],
    (_q, r) => {
      const error = v3Error(r);
      if (!error || r.status !== 400) return undefined;
      delete error.type;
      return withJson(r, { error });
    },
  ),
  {
    name: 'Retry-After in milliseconds',
    category: 'headers',
    rules: ['errors.status-map.retry-after-integer'],
    args: [...STATEFUL, ...only('listModels', 'getBillingUsage')],
    response: header((h, r) =>
      r.status === 429 && h['retry-after']
        ? { ...h, 'retry-after': `${Number(h['retry-after']) * 1000}ms` }
        : undefined,
    ),
  },
  // the v2 kinds
  code('a v2 FORBIDDEN answered 401', ['errors.v2.kind.forbidden-403'], BLOCKED, v2Kind('FORBIDDEN', { status: 401 })),
  code(
    'a v2 NOT_FOUND kind answered as MISSING',
    ['errors.v2.kind.not-found-404', 'v2.transcript-chat.rule5.not-found-404'],
    V2_SCENARIO,
    v2Kind('NOT_FOUND', { kind: 'MISSING' }),
  ),
  code(
    'a v2 RATE_LIMITED answered 503',
    ['errors.v2.kind.rate-limited-429'],
    [...STATEFUL, ...only('listModels', 'getBillingUsage')],
    v2Kind('RATE_LIMITED', { status: 503 }),
  ),
  code(
    'a v2 INSUFFICIENT_FUNDS answered 400',
    ['errors.v2.kind.insufficient-funds-402', 'v2.transcript-chat.rule5.insufficient-funds-402'],
    V2_CHAT,
    v2Kind('INSUFFICIENT_FUNDS', { status: 400 }),
  ),
  code(
    'a v2 NOT_READY answered 409',
    ['errors.v2.not-ready', 'v2.transcript-chat.rule5.not-ready-400'],
    V2_CHAT,
    v2Kind('NOT_READY', { status: 409 }),
  ),
  code(
    'v2 validation errors as a list',
    ['errors.v2.errors-names-field', 'v2.calculate.validation-errors'],
    ['--phases', 'negative', ...only('calculateV2TranscriptionCost')],
    (_q, r) => {
      const value = json(r) as { error?: unknown; errors?: Record<string, string[]> } | undefined;
      if (r.status !== 400 || typeof value?.error !== 'string' || !value.errors) return undefined;
      return withJson(r, { ...value, errors: Object.values(value.errors).flat() });
    },
  ),
  code('a v2 401 with the v3 error object', ['errors.v2.every-non-success'], V2_SCENARIO, (q, r) =>
    r.status === 401 && q.path.startsWith('/v2/')
      ? withJson(r, {
          error: { type: 'authentication_error', code: 'invalid_api_key', message: 'Bad signature.', param: null },
        })
      : undefined,
  ),
];
