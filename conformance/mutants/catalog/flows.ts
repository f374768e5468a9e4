// Mutants of what happens across requests: a task whose states skip or leave a final state, a failed task without
// its error, a cancel that cancels nothing, a replayed create with another id, a result that cannot be read back,
// a signed or keyed request let in that must be refused, a valid request refused, a stream closed with another
// code, a webhook delivery lost on the way. Most run the stateful (or streaming) scenario that meets them.
import { randomUUID } from 'node:crypto';
import { json, withJson, type Mutant, type ProxyRequest, type ProxyResponse } from '../proxy.ts';
import { on, body, inData, accept, EX, STATEFUL, only } from './operators.ts';

const TASKS = [...STATEFUL, ...only('getTranscriptionStatus', 'createAsyncTranscription', 'calculatePrice')];
const V2 = [...STATEFUL, ...only('createV2Transcription', 'getV2Transcription', 'downloadV2TranscriptionResult')];
const STREAMING = ['--phases', 'streaming'];
/** The scenario that sends every model the document names (documented-models.ts). */
const MODELS = [...STATEFUL, ...only('createOpenAiAudioTranscription', 'listModels', 'createChatCompletion')];

/** A task read whose first final state `final` is kept, and every later read of it edited. */
const afterFinal = (final: string, edit: (task: Record<string, unknown>) => void) =>
  on('getTranscriptionStatus', (q, r, memory) =>
    body(
      200,
      inData((t) => {
        const key = `final:${q.path}`;
        if (!memory.state.has(key)) {
          if (t.status === final) memory.state.set(key, true);
          return;
        }
        edit(t);
      }),
    )(q, r, memory),
  );

const v3NotFound = (r: ProxyResponse) =>
  withJson(
    r,
    { error: { type: 'invalid_request_error', code: 'not_found', message: 'No such task.', param: 'id' } },
    404,
  );

/** A v2 or v1 refusal of the signature (401) answered as the last success, when `when` holds. */
const acceptSigned = (when: (request: ProxyRequest) => boolean) =>
  accept((q, r) => r.status === 401 && /^\/v[12]\//.test(q.path) && when(q));

/** A stream frame `error` with its close_code rewritten (so the frame and the close agree). */
const errorCloseCode = (from: number, to: number) => (data: string) => {
  try {
    const message = JSON.parse(data) as { type?: unknown; close_code?: unknown };
    if (message.type !== 'error' || message.close_code !== from) return data;
    return JSON.stringify({ ...message, close_code: to });
  } catch {
    return data;
  }
};

const closeSwap = (name: string, rules: string[], from: number, to: number): Mutant => ({
  name,
  category: 'stream',
  rules,
  args: STREAMING,
  frame: errorCloseCode(from, to),
  closeCode: (code) => (code === from ? to : code),
});

const MUTANTS: Mutant[] = [
  // states
  {
    name: 'a cancelled task later reads as ready',
    category: 'state machine',
    rules: ['states.v3.final.cancelled-never-changes'],
    response: afterFinal('cancelled', (t) => {
      t.status = 'ready';
      t.progress = 0;
    }),
  },
  {
    name: 'a failed task without its error',
    category: 'state machine',
    rules: ['states.v3.failed.error-set', 'transcription.v3.error-when-failed', 'states.v3.edge.processing-failed'],
    response: on(
      'getTranscriptionStatus',
      body(
        200,
        inData((t) => t.status === 'failed' && delete t.error),
      ),
    ),
  },
  {
    name: 'a failed task whose error has no param',
    category: 'state machine',
    rules: ['errors.v3.same-object-in-failed-task'],
    response: on(
      'getTranscriptionStatus',
      body(
        200,
        inData((t) => {
          if (t.status === 'failed' && t.error && typeof t.error === 'object')
            delete (t.error as Record<string, unknown>).param;
        }),
      ),
    ),
  },
  {
    name: 'a failed async task coded internal_error',
    category: 'state machine',
    rules: ['errors.code.async-failure-causes', 'errors.code-status.async-causes-fail-task'],
    response: on(
      'getTranscriptionStatus',
      body(
        200,
        inData((t) => {
          if (t.status === 'failed' && t.error && typeof t.error === 'object')
            Object.assign(t.error as Record<string, unknown>, { type: 'server_error', code: 'internal_error' });
        }),
      ),
    ),
  },
  {
    name: 'an uploaded task shows created instead of ready',
    category: 'state machine',
    rules: ['states.v3.rule1.upload-starts-ready'],
    // the link scenario's upload, sent while the server's worker fetches a slow link, is read while it waits
    args: [...STATEFUL, ...only('createAsyncTranscription', 'getTranscriptionStatus', 'cancelTranscription')],
    response: on(
      'getTranscriptionStatus',
      body(
        200,
        inData((t) => {
          if (t.source_type === 'upload' && t.status === 'ready') t.status = 'created';
        }),
      ),
    ),
  },
  {
    name: 'a link task skips downloading',
    category: 'state machine',
    rules: ['states.v3.edge.created-downloading', 'states.v3.edge.downloading-ready'],
    // the link scenario reads its slow-link task while the suite's media server holds the answer back
    args: [...STATEFUL, ...only('createAsyncTranscription', 'getTranscriptionStatus', 'cancelTranscription')],
    response: on(
      'getTranscriptionStatus',
      body(
        200,
        inData((t) => {
          if (t.source_type === 'url' && t.status === 'downloading') t.status = 'created';
          else if (t.source_type === 'url' && t.status === 'ready') t.status = 'processing';
        }),
      ),
    ),
  },
  {
    name: 'a cancel answered 200 leaves the task ready',
    category: 'state machine',
    rules: ['states.v3.rule2.cancel-operation', 'states.v3.edge.ready-cancelled', 'states.v3.edge.created-cancelled'],
    response: on(
      'cancelTranscription',
      body(
        200,
        inData((t) => {
          if (t.status !== 'cancelled') return;
          t.status = 'ready';
          delete t.completed_at;
        }),
      ),
    ),
  },
  {
    name: 'a completed task without minutes_billed',
    category: 'billing',
    rules: ['transcription.v3.completed-billing-fields'],
    args: TASKS,
    response: on(
      'getTranscriptionStatus',
      body(
        200,
        inData((t) => t.status === 'completed' && delete t.minutes_billed),
      ),
    ),
  },
  {
    name: 'a completed task costed in kopecks',
    category: 'billing',
    rules: ['transcription.v3.cost-unit'],
    args: TASKS,
    response: on(
      'getTranscriptionStatus',
      body(
        200,
        inData((t) => {
          if (t.status === 'completed' && typeof t.cost === 'number') t.cost = Math.round(t.cost * 100);
        }),
      ),
    ),
  },
  // reading back
  {
    name: 'a sync-created task is not found on the status endpoint',
    category: 'state machine',
    rules: ['stt.sync.result-from-status'],
    args: [...STATEFUL, ...only('createSyncTranscription', 'getTranscriptionStatus')],
    response: (q, r, memory) => {
      if (q.operation?.id === 'createSyncTranscription' && r.status === 200) {
        const id = (json(r) as { data?: { id?: string } } | undefined)?.data?.id;
        if (id) memory.state.set(`sync:${id}`, true);
        return undefined;
      }
      const id = q.path.split('?')[0]!.split('/').at(-1);
      return q.operation?.id === 'getTranscriptionStatus' && memory.state.has(`sync:${id}`) ? v3NotFound(r) : undefined;
    },
  },
  {
    name: 'v2 result links answer 404',
    category: 'state machine',
    rules: ['versioning.v2-source-url-links', 'overview.v2.features'],
    args: V2,
    response: (q, r) =>
      q.path.startsWith('/v2/results/') && r.status === 200
        ? withJson(r, { error: 'NOT_FOUND', message: 'No such result.', errors: {} }, 404)
        : undefined,
  },
  {
    name: 'an idempotent replay answers another id',
    category: 'state machine',
    rules: ['api.idempotency-replay'],
    response: (q, r, memory) => {
      const key = q.headers['idempotency-key'];
      if (!key || r.status < 200 || r.status >= 300) return undefined;
      const seen = `idem:${key}`;
      if (!memory.state.has(seen)) {
        memory.state.set(seen, true);
        return undefined;
      }
      const text = r.body.toString('utf8');
      const replaced = text.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/, randomUUID());
      return replaced === text ? undefined : { ...r, body: Buffer.from(replaced) };
    },
  },
  // let in what must be refused
  {
    name: 'accept a v3 request without Authorization',
    category: 'auth',
    rules: ['endpoints.v3-bearer', 'auth.v3.bearer-header'],
    args: [...EX, ...only('listWebhooks', 'listApiKeys')],
    response: accept((q, r) => r.status === 401 && q.path.startsWith('/v3/') && !q.headers.authorization),
  },
  {
    name: 'accept a v1 request without a signature',
    category: 'auth',
    rules: ['endpoints.v2-v1-signed'],
    // the signature variants of the v2 scenario end with the v1 usage report signed and not
    args: [...STATEFUL, ...only('createV2Transcription', 'getV2Transcription', 'getBillingUsage')],
    response: accept((q, r) => r.status === 401 && q.path.startsWith('/v1/') && !q.headers['x-signature']),
  },
  {
    name: 'accept a signed request with a fresh timestamp whatever its signature',
    category: 'auth',
    rules: ['auth.v2.bad-signature-401', 'auth.v2.signature-lowercase-hex-hmac'],
    args: V2,
    response: acceptSigned(
      (q) => !!q.headers['x-signature'] && Math.abs(Number(q.headers['x-timestamp']) - Date.now() / 1000) <= 300,
    ),
  },
  {
    name: 'accept any signature of version 2',
    category: 'auth',
    rules: ['auth.v2.signature-version-2'],
    args: V2,
    response: acceptSigned((q) => q.headers['x-signature-version'] === '2'),
  },
  {
    name: 'accept a timestamp in milliseconds',
    category: 'auth',
    rules: ['auth.v2.timestamp-unix-seconds'],
    args: V2,
    response: acceptSigned((q) => Number(q.headers['x-timestamp']) > 1e11),
  },
  {
    name: 'health asks for a key',
    category: 'auth',
    rules: ['auth.health-no-auth'],
    args: [...EX, ...only('getHealth')],
    response: on('getHealth', (q, r) =>
      r.status === 200 && !q.headers.authorization
        ? withJson(
            r,
            { error: { type: 'authentication_error', code: 'invalid_api_key', message: 'No key.', param: null } },
            401,
          )
        : undefined,
    ),
  },
  {
    name: 'v2 calls not rate limited',
    category: 'validation',
    rules: ['limits.rate.v2-too'],
    response: accept((q, r) => r.status === 429 && /^\/v[12]\//.test(q.path)),
  },
  {
    name: 'stream session creation not rate limited',
    category: 'validation',
    rules: ['limits.rate.all-requests'],
    // the burst scenario: reads up to the limit, then stream sessions past it
    args: [...STATEFUL, ...only('listModels', 'getBillingUsage', 'listApiKeys', 'createStreamSession')],
    response: accept((q, r) => r.status === 429 && q.operation?.id === 'createStreamSession'),
  },
  // refuse what must be let in
  {
    name: 'refuse whisper-1',
    category: 'validation',
    rules: ['api.whisper-1-alias'],
    args: MODELS,
    response: on('createOpenAiAudioTranscription', (q, r) =>
      r.status === 200 && q.body.includes('whisper-1')
        ? withJson(
            r,
            { error: { type: 'invalid_request_error', code: 'model_not_found', message: 'Unknown.', param: 'model' } },
            404,
          )
        : undefined,
    ),
  },
  {
    name: 'refuse service-pro',
    category: 'validation',
    rules: ['overview.chat.two-models'],
    args: MODELS,
    response: on('createChatCompletion', (q, r) =>
      r.status === 200 && q.body.includes('service-pro')
        ? withJson(
            r,
            { error: { type: 'invalid_request_error', code: 'model_not_found', message: 'Unknown.', param: 'model' } },
            404,
          )
        : undefined,
    ),
  },
  {
    name: 'refuse a usage query without parameters',
    category: 'validation',
    rules: ['usage.query-optional'],
    args: [...EX, ...only('getBillingUsage')],
    response: on('getBillingUsage', (q, r) =>
      r.status === 200 && !q.path.includes('?')
        ? withJson(r, { error: 'VALIDATION_ERROR', message: 'Invalid.', errors: { period: ['Required.'] } }, 400)
        : undefined,
    ),
  },
  {
    name: 'refuse an async create from a link',
    category: 'validation',
    rules: ['stt.async.json-url'],
    response: on('createAsyncTranscription', (q, r) =>
      r.status === 202 && /json/.test(q.headers['content-type'] ?? '')
        ? withJson(
            r,
            { error: { type: 'invalid_request_error', code: 'invalid_parameter', message: 'Bad url.', param: 'url' } },
            400,
          )
        : undefined,
    ),
  },
  // the stream's close codes
  closeSwap('a reused ticket closed 4400', ['stream.close.4401', 'limits.stream.link-60s-single-use'], 4401, 4400),
  closeSwap('audio before session closed 4401', ['stream.close.4400', 'stream.audio-before-session-4400'], 4400, 4401),
  closeSwap('a flooded stream closed 4408', ['stream.close.4429'], 4429, 4408),
  {
    name: 'a clean stream end closed 1001',
    category: 'stream',
    rules: ['stream.close.1000', 'stream.close.no-other-code', 'stream.client.end'],
    args: STREAMING,
    closeCode: (code) => (code === 1000 ? 1001 : code),
  },
  // webhooks lost on the way
  {
    name: 'transcription.completed never delivered',
    category: 'webhooks',
    rules: ['webhooks.events.on-completed', 'overview.webhooks-alternative'],
    args: [
      ...STATEFUL,
      ...only('createWebhook', 'testWebhook', 'createAsyncTranscription', 'getTranscriptionStatus', 'calculatePrice'),
    ],
    webhook: (h, body) => (body.includes('"transcription.completed"') ? undefined : h),
  },
  {
    name: 'transcription.failed never delivered',
    category: 'webhooks',
    rules: ['webhooks.events.on-failed'],
    webhook: (h, body) => (body.includes('"transcription.failed"') ? undefined : h),
  },
];

// a mutant without its own args runs the whole stateful phase: its scenarios need operations beyond its rules' scopes
export const FLOWS: Mutant[] = MUTANTS.map((m) => ({ ...m, args: m.args ?? STATEFUL }));
