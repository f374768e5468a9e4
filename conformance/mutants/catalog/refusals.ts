// Mutants of where the endpoints are, what they refuse and with which status and code: a path answered away from
// the base URL or its version prefix, an endpoint of the list answered with another success status, the sync
// limits let in or refused otherwise, an error code or status of the table swapped for a near one, a request the
// schema refuses let in (both `url` and `file`, another message role), a bodiless request refused, the signed
// headers or the list's default page size not honoured. Each finds its answer by operation and code, so it breaks
// that one sentence and leaves the rest.
import { json, withJson, type Mutant, type ProxyRequest, type ProxyResponse } from '../proxy.ts';
import { accept, body, on, endpointStatus, v3Code, v3Error, EX, STATEFUL, only } from './operators.ts';

const keep = () => undefined;

/** The v3 404 of a route the server does not have. */
const noRoute = (r: ProxyResponse, message: string): ProxyResponse =>
  withJson(r, { error: { type: 'not_found_error', code: 'not_found', message, param: null } }, 404);

/** The code of a v3 error, or a v2 error kind. */
const codeOf = (r: ProxyResponse): unknown => {
  const value = json(r) as { error?: unknown } | undefined;
  return typeof value?.error === 'string' ? value.error : v3Error(r)?.code;
};

/** Whether a create's body names a `url` and a `file` (a JSON body or a multipart form). */
function sources(q: ProxyRequest): { url: boolean; file: boolean } {
  if (/multipart\//.test(q.headers['content-type'] ?? '')) {
    const text = q.body.toString('latin1');
    return { url: /name="url"/.test(text), file: /name="file"/.test(text) };
  }
  try {
    const value = JSON.parse(q.body.toString('utf8')) as Record<string, unknown> | null;
    return { url: value !== null && typeof value === 'object' && 'url' in value, file: false };
  } catch {
    return { url: false, file: false };
  }
}

// the over-limit uploads of `--slow` (and nothing else of it: the stream cases need createStreamSession)
const OVER_LIMITS = [...STATEFUL, '--slow', ...only('createSyncTranscription')];
const WEBHOOK_UPDATE = [
  ...STATEFUL,
  ...only('createWebhook', 'updateWebhook', 'blockAccount', 'unblockAccount', 'listModels'),
];
// the v2 lifecycle: a task created, read until final, asked about, then its signature probes (v2 read and v1 usage)
const V2_LIFECYCLE = [
  ...STATEFUL,
  ...only('createV2Transcription', 'getV2Transcription', 'createV2TranscriptChatCompletion', 'getBillingUsage'),
];

export const REFUSALS: Mutant[] = [
  // where the paths are
  {
    name: 'the v3 paths served under /api: 404 at the base URL',
    category: 'status',
    rules: ['doc.base-url.relative-paths'],
    args: [...EX, ...only('listModels', 'listApiKeys')],
    response: (q, r) => (q.path.startsWith('/v3/') ? noRoute(r, `No route ${q.method} ${q.path}.`) : undefined),
  },
  {
    name: 'the usage report without its /v1 prefix: 404',
    category: 'status',
    rules: ['versioning.path-prefix'],
    args: [...EX, ...only('getBillingUsage')],
    response: on('getBillingUsage', (q, r) => noRoute(r, `No route ${q.method} ${q.path}; see /v3/billing/usage.`)),
  },
  // the endpoint list
  endpointStatus('createStreamSession', 201, 202, ['endpoints.list.stt-stream']),
  endpointStatus('createV2Transcription', 201, 202, ['endpoints.list.v2-create']),
  endpointStatus('createV2TranscriptChatCompletion', 200, 201, ['endpoints.list.v2-transcript-chat'], V2_LIFECYCLE),
  {
    name: 'a stream session create without a body refused 400 (settings asked in the request)',
    category: 'validation',
    rules: ['stt.stream.no-body'],
    args: ['--phases', 'streaming', ...only('createStreamSession')],
    response: on('createStreamSession', (q, r) =>
      r.status === 201 && q.body.length === 0
        ? withJson(
            r,
            {
              error: {
                type: 'invalid_request_error',
                code: 'missing_parameter',
                message: 'language is required.',
                param: 'language',
              },
            },
            400,
          )
        : undefined,
    ),
  },
  // the sync create's limits
  {
    name: 'a sync upload over 25 MB let in',
    category: 'validation',
    rules: ['stt.sync.max-file-size', 'limits.sync.file-25mb'],
    args: OVER_LIMITS,
    response: accept((q, r) => q.operation?.id === 'createSyncTranscription' && codeOf(r) === 'file_too_large'),
  },
  {
    name: 'a sync upload over 5 minutes let in',
    category: 'validation',
    rules: ['stt.sync.max-duration', 'limits.sync.duration-5min'],
    args: OVER_LIMITS,
    response: accept((q, r) => q.operation?.id === 'createSyncTranscription' && codeOf(r) === 'duration_exceeded'),
  },
  {
    name: 'file_too_large answered 413',
    category: 'errors',
    rules: ['stt.sync.limit-errors-400', 'errors.code-status.limit-errors-400-sync'],
    args: OVER_LIMITS,
    response: v3Code('file_too_large', keep, 413),
  },
  {
    name: 'duration_exceeded coded file_too_large',
    category: 'errors',
    rules: ['errors.code.duration-exceeded'],
    args: OVER_LIMITS,
    response: v3Code('duration_exceeded', (e) => (e.code = 'file_too_large')),
  },
  // the code table
  {
    name: 'a quote of an unknown model answered 400 model_not_found',
    category: 'errors',
    rules: ['errors.code-status.model-not-found-404'],
    args: [...STATEFUL, ...only('createChatCompletion', 'calculatePrice')],
    response: on(
      'calculatePrice',
      v3Code('model_not_found', (e) => (e.type = 'invalid_request_error'), 400),
    ),
  },
  {
    name: 'a blocked webhook update coded invalid_state',
    category: 'errors',
    rules: ['errors.code-status.user-blocked-409-webhook-update'],
    args: WEBHOOK_UPDATE,
    response: on(
      'updateWebhook',
      v3Code('user_blocked', (e) => (e.code = 'invalid_state')),
    ),
  },
  {
    name: 'unsupported_language coded invalid_parameter',
    category: 'errors',
    rules: ['errors.code.unsupported-language'],
    args: [...STATEFUL, ...only('listModels', 'createSyncTranscription')],
    response: v3Code('unsupported_language', (e) => (e.code = 'invalid_parameter')),
  },
  {
    name: 'a 415 typed unsupported_media_type',
    category: 'errors',
    rules: ['errors.status-map.415'],
    args: ['--phases', 'examples,negative', ...only('createSyncTranscription')],
    response: v3Code('unsupported_media_type', (e) => (e.type = 'unsupported_media_type')),
  },
  // requests the schema refuses, let in
  {
    name: 'accept an async create with both url and file, or neither',
    category: 'validation',
    rules: ['params.url-or-file.exactly-one'],
    args: ['--phases', 'negative', ...only('createAsyncTranscription')],
    response: accept((q, r) => {
      if (q.operation?.id !== 'createAsyncTranscription' || r.status !== 400) return false;
      const given = sources(q);
      return given.url === given.file;
    }),
  },
  {
    name: 'accept a chat message of another role',
    category: 'validation',
    rules: ['chat.v3.message-roles'],
    args: ['--phases', 'negative', ...only('createChatCompletion')],
    response: accept(
      (q, r) =>
        q.operation?.id === 'createChatCompletion' &&
        r.status === 400 &&
        /^messages\b.*\brole$/.test(String(v3Error(r)?.param)),
    ),
  },
  // the model list
  {
    name: 'the chat models listed with type llm',
    category: 'body',
    rules: ['api.openai-model-ids'],
    args: [...EX, ...only('listModels')],
    response: on(
      'listModels',
      body(200, (v) => {
        for (const model of Array.isArray(v.data) ? (v.data as Record<string, unknown>[]) : [])
          if (model.type === 'chat') model.type = 'llm';
        return v;
      }),
    ),
  },
  // a server running without service-pro (the proxy lists it unavailable, as such a server does) that answers its
  // chat 500 instead of 503 `engine_unavailable`
  {
    name: 'a chat model without its engine answered 500',
    category: 'errors',
    rules: ['errors.code-status.engine-unavailable-503'],
    args: [...STATEFUL, ...only('createOpenAiAudioTranscription', 'listModels', 'createChatCompletion')],
    response: (q, r, memory) => {
      if (q.operation?.id === 'listModels')
        return body(200, (v) => {
          for (const model of Array.isArray(v.data) ? (v.data as Record<string, unknown>[]) : [])
            if (model.id === 'service-pro') model.status = 'unavailable';
          return v;
        })(q, r, memory);
      if (q.operation?.id !== 'createChatCompletion' || !q.body.includes('"service-pro"')) return undefined;
      const message = 'The engine of service-pro is not available.';
      return withJson(r, { error: { type: 'server_error', code: 'engine_unavailable', message, param: 'model' } }, 500);
    },
  },
  // the signed headers
  {
    name: 'accept a v1 request without X-Public-Key',
    category: 'auth',
    rules: ['api.required-headers'],
    args: V2_LIFECYCLE,
    response: accept((q, r) => r.status === 401 && q.path.startsWith('/v1/') && !q.headers['x-public-key']),
  },
  // the list's default page
  {
    name: 'a key list without limit answered 50 keys',
    category: 'defaults',
    rules: ['api.list-pagination.default-20'],
    args: [...STATEFUL, ...only('createApiKey', 'listApiKeys')],
    forwardPath: (_method, path, operation) => {
      if (operation?.id !== 'listApiKeys' || new URL(path, 'http://server').searchParams.has('limit')) return undefined;
      return `${path}${path.includes('?') ? '&' : '?'}limit=50`;
    },
  },
];
