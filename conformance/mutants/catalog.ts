// The mutant catalog: each one breaks one rule of the contract in what the server answers, and names the suite
// run that should notice (phases and operations), so the whole catalog runs in minutes.
import { randomUUID } from 'node:crypto';
import { json, withJson, type Memory, type Mutant, type ProxyRequest, type ProxyResponse } from './proxy.ts';

type Rewrite = (request: ProxyRequest, response: ProxyResponse, memory: Memory) => ProxyResponse | undefined;

const on =
  (operationId: string, rewrite: Rewrite): Rewrite =>
  (request, response, memory) =>
    request.operation?.id === operationId ? rewrite(request, response, memory) : undefined;

const status =
  (from: number, to: number): Rewrite =>
  (_q, r) =>
    r.status === from ? { ...r, status: to } : undefined;

const body =
  (when: number, edit: (value: Record<string, unknown>) => unknown): Rewrite =>
  (_q, r) => {
    const value = json(r);
    return r.status === when && value && typeof value === 'object'
      ? withJson(r, edit(structuredClone(value) as Record<string, unknown>))
      : undefined;
  };

const header =
  (edit: (headers: Record<string, string>, response: ProxyResponse) => Record<string, string> | undefined): Rewrite =>
  (_q, r) => {
    const headers = edit({ ...r.headers }, r);
    return headers ? { ...r, headers } : undefined;
  };

/** Answers a refusal that matches `when` with the operation's last successful answer, as if it had been let in. */
const accept =
  (when: (request: ProxyRequest, response: ProxyResponse, code: unknown) => boolean): Rewrite =>
  (request, response, memory) => {
    const value = json(response) as { error?: unknown } | undefined;
    const code =
      typeof value?.error === 'string' ? value.error : (value?.error as { code?: unknown } | undefined)?.code;
    if (!request.operation || !when(request, response, code)) return undefined;
    const good =
      memory.lastGoodAt(request.method, request.path.split('?')[0]!) ?? memory.lastGood(request.operation.id);
    if (good) return good;
    // nothing let in yet: a bare success of the operation's first 2xx status
    const success = Object.keys(request.operation.responses).find((s) => s.startsWith('2')) ?? '200';
    return withJson(response, {}, Number(success));
  };

const drop = (key: string) => (value: Record<string, unknown>) => {
  delete value[key];
  return value;
};

const inData = (edit: (task: Record<string, unknown>) => void) => (value: Record<string, unknown>) => {
  if (value.data && typeof value.data === 'object') edit(value.data as Record<string, unknown>);
  return value;
};

const errorEdit = (edit: (error: Record<string, unknown>) => void) => (value: Record<string, unknown>) => {
  if (value.error && typeof value.error === 'object') edit(value.error as Record<string, unknown>);
  return value;
};

/** Edits the `balance` object of a price quote (where the suite reads an account's balance and reservations). */
const withBalance = (value: Record<string, unknown>, edit: (balance: Record<string, unknown>) => void) => {
  if (value.balance && typeof value.balance === 'object') edit(value.balance as Record<string, unknown>);
  return value;
};

const EX = ['--phases', 'examples'];
const STATEFUL = ['--phases', 'stateful'];
const only = (...ids: string[]) => ['--include', ids.join(',')];

export const MUTANTS: Mutant[] = [
  // status codes
  {
    name: 'listModels 200 → 201',
    category: 'status',
    args: [...EX, ...only('listModels')],
    response: on('listModels', status(200, 201)),
  },
  {
    name: 'createWebhook 201 → 200',
    category: 'status',
    args: [...EX, ...only('createWebhook')],
    response: on('createWebhook', status(201, 200)),
  },
  {
    name: 'createAsyncTranscription 202 → 200',
    category: 'status',
    args: [...STATEFUL, ...only('createAsyncTranscription', 'getTranscriptionStatus', 'calculatePrice')],
    response: on('createAsyncTranscription', status(202, 200)),
  },
  {
    name: 'unknown task 404 → 403',
    category: 'status',
    args: [...EX, ...only('getTranscriptionStatus')],
    response: on('getTranscriptionStatus', status(404, 403)),
  },
  {
    name: 'foreign id 404 → 403',
    category: 'status',
    args: [
      ...STATEFUL,
      ...only('getTranscriptionStatus', 'createAsyncTranscription', 'calculatePrice', 'createWebhook'),
    ],
    response: (q, r) =>
      q.operation?.id === 'getTranscriptionStatus' && r.status === 404 ? { ...r, status: 403 } : undefined,
  },
  {
    name: '429 without Retry-After',
    category: 'status',
    args: [...STATEFUL, ...only('listModels', 'getBillingUsage')],
    response: header((h, r) => (r.status === 429 ? (delete h['retry-after'], h) : undefined)),
  },
  {
    name: 'unsupported method 405 → 404',
    category: 'status',
    args: [...EX, ...only('listWebhooks')],
    response: (q, r) => (r.status === 405 ? { ...r, status: 404 } : undefined),
  },
  {
    name: '405 without Allow',
    category: 'status',
    args: [...EX, ...only('listApiKeys')],
    response: header((h, r) => (r.status === 405 ? (delete h.allow, h) : undefined)),
  },
  {
    name: 'invalid key 401 → 403',
    category: 'status',
    args: [...EX, ...only('listWebhooks')],
    response: on('listWebhooks', status(401, 403)),
  },
  {
    name: 'validation 400 → 422',
    category: 'status',
    args: ['--phases', 'negative', ...only('calculatePrice')],
    response: on('calculatePrice', status(400, 422)),
  },
  {
    name: 'a crash: listWebhooks 200 → 500',
    category: 'status',
    args: [...EX, ...only('listWebhooks')],
    response: on('listWebhooks', (_q, r) =>
      r.status === 200
        ? withJson(
            r,
            { error: { type: 'server_error', code: 'internal_error', message: 'Internal server error.', param: null } },
            500,
          )
        : undefined,
    ),
  },
  // bodies
  {
    name: 'model list without `object`',
    category: 'body',
    args: [...EX, ...only('listModels')],
    response: on('listModels', body(200, drop('object'))),
  },
  {
    name: 'task without `progress`',
    category: 'body',
    args: [...STATEFUL, ...only('getTranscriptionStatus', 'createAsyncTranscription', 'calculatePrice')],
    response: on(
      'getTranscriptionStatus',
      body(
        200,
        inData((t) => delete t.progress),
      ),
    ),
  },
  {
    name: 'price amount as a string',
    category: 'body',
    args: [...EX, ...only('calculatePrice')],
    response: on(
      'calculatePrice',
      body(200, (v) => ({ ...v, amount: String(v.amount) })),
    ),
  },
  {
    name: 'undocumented model status',
    category: 'body',
    args: [...EX, ...only('listModels')],
    response: on(
      'listModels',
      body(200, (v) => ({
        ...v,
        data: (v.data as Array<Record<string, unknown>>).map((m) => ({ ...m, status: 'sleeping' })),
      })),
    ),
  },
  {
    name: 'extra property in a task',
    category: 'body',
    args: [...STATEFUL, ...only('getTranscriptionStatus', 'createAsyncTranscription', 'calculatePrice')],
    response: on(
      'getTranscriptionStatus',
      body(
        200,
        inData((t) => (t.internal_score = 0.5)),
      ),
    ),
  },
  {
    name: 'webhook create without its secret',
    category: 'body',
    args: [...EX, ...only('createWebhook')],
    response: on('createWebhook', body(201, drop('secret'))),
  },
  {
    name: 'v3 error without `param`',
    category: 'body',
    args: ['--phases', 'negative', ...only('createWebhook')],
    response: body(
      400,
      errorEdit((e) => delete e.param),
    ),
  },
  {
    name: 'param names another field',
    category: 'body',
    args: ['--phases', 'negative', ...only('calculatePrice')],
    response: on(
      'calculatePrice',
      body(
        400,
        errorEdit((e) => (e.param = 'type')),
      ),
    ),
  },
  {
    name: 'v2 error without `errors`',
    category: 'body',
    args: ['--phases', 'negative', ...only('calculateV2TranscriptionCost')],
    response: body(400, (v) => (typeof v.error === 'string' ? (delete v.errors, v) : v)),
  },
  {
    name: 'stack trace in an error',
    category: 'body',
    args: ['--phases', 'negative', ...only('createWebhook')],
    response: body(
      400,
      errorEdit((e) => (e.message = `${String(e.message)}\n    at validate (/srv/app/handlers.js:42:7)`)),
    ),
  },
  // headers and content types
  {
    name: 'X-Request-Id missing',
    category: 'headers',
    args: [...EX, ...only('listModels')],
    response: header((h) => (delete h['x-request-id'], h)),
  },
  {
    name: 'RateLimit-Limit not a number',
    category: 'headers',
    args: [...EX, ...only('listModels')],
    response: header((h) => (h['ratelimit-limit'] ? ((h['ratelimit-limit'] = 'ten'), h) : undefined)),
  },
  {
    name: 'JSON served as text/plain',
    category: 'headers',
    args: [...EX, ...only('listWebhooks')],
    response: on(
      'listWebhooks',
      header((h) => ((h['content-type'] = 'text/plain'), h)),
    ),
  },
  {
    name: 'SRT without charset',
    category: 'headers',
    args: [
      ...STATEFUL,
      ...only('getTranscriptionResult', 'getTranscriptionStatus', 'createAsyncTranscription', 'calculatePrice'),
    ],
    response: on(
      'getTranscriptionResult',
      header((h) =>
        /^text\//.test(h['content-type'] ?? '')
          ? ((h['content-type'] = h['content-type']!.split(';')[0]!), h)
          : undefined,
      ),
    ),
  },
  // auth
  {
    name: 'ignore the key (401 → last good answer)',
    category: 'auth',
    args: [...EX, ...only('listWebhooks')],
    response: accept((_q, r) => r.status === 401),
  },
  {
    name: 'accept a stale HMAC timestamp',
    category: 'auth',
    args: [...STATEFUL, ...only('createV2Transcription', 'getV2Transcription', 'downloadV2TranscriptionResult')],
    response: accept(
      (q, r) => r.status === 401 && Math.abs(Number(q.headers['x-timestamp']) - Date.now() / 1000) > 300,
    ),
  },
  {
    name: 'accept a request without X-Signature',
    category: 'auth',
    args: [...STATEFUL, ...only('createV2Transcription', 'getV2Transcription', 'downloadV2TranscriptionResult')],
    response: accept((q, r) => r.status === 401 && !q.headers['x-signature']),
  },
  {
    name: 'accept a wrong admin token',
    category: 'auth',
    args: [...EX, ...only('listAccounts')],
    response: accept((q, r) => r.status === 401 && q.operation?.security === 'admin'),
  },
  {
    name: "leak another account's task",
    category: 'auth',
    args: [
      ...STATEFUL,
      ...only(
        'getTranscriptionStatus',
        'createAsyncTranscription',
        'calculatePrice',
        'createWebhook',
        'getTranscriptionResult',
      ),
    ],
    response: accept((q, r) => r.status === 404 && q.operation?.id === 'getTranscriptionStatus'),
  },
  {
    name: 'a revoked key keeps working',
    category: 'auth',
    args: [...STATEFUL, ...only('createApiKey', 'revokeApiKey', 'listModels')],
    response: accept((q, r) => r.status === 401 && q.operation?.id === 'listModels'),
  },
  {
    name: 'a deleted webhook stays usable',
    category: 'auth',
    args: [
      ...STATEFUL,
      ...only('createWebhook', 'deleteWebhook', 'updateWebhook', 'testWebhook', 'listWebhookDeliveries'),
    ],
    response: accept((q, r) => r.status === 404 && q.operation?.id === 'updateWebhook'),
  },
  {
    name: 'a blocked account is let in',
    category: 'auth',
    args: [...STATEFUL, ...only('blockAccount', 'unblockAccount', 'listModels', 'getBillingUsage')],
    response: accept((_q, r, code) => r.status === 403 && (code === 'user_blocked' || code === 'FORBIDDEN')),
  },
  {
    name: 'a tampered result link is served',
    category: 'auth',
    args: [...STATEFUL, ...only('createV2Transcription', 'getV2Transcription', 'downloadV2TranscriptionResult')],
    response: accept((q, r) => r.status === 403 && q.operation?.id === 'downloadV2TranscriptionResult'),
  },
  // validation
  {
    name: 'accept an out-of-range temperature',
    category: 'validation',
    args: ['--phases', 'coverage', ...only('createOpenAiAudioTranscription')],
    response: accept((q, r) => r.status === 400 && /temperature/.test(r.body.toString())),
  },
  {
    name: 'accept both url and file',
    category: 'validation',
    args: ['--phases', 'negative', ...only('createAsyncTranscription')],
    response: accept((q, r) => r.status === 400 && /"param":"url"/.test(r.body.toString())),
  },
  {
    // the async create takes JSON first and a multipart form second: only a negative phase that mutates every
    // request media type sends the invalid forms this lets in
    name: 'accept an invalid multipart async create',
    category: 'validation',
    args: ['--phases', 'negative', ...only('createAsyncTranscription')],
    response: on(
      'createAsyncTranscription',
      accept((q, r) => r.status === 400 && /^multipart\/form-data/i.test(q.headers['content-type'] ?? '')),
    ),
  },
  {
    name: 'accept broken JSON',
    category: 'validation',
    args: ['--phases', 'examples,negative', ...only('calculatePrice')],
    response: accept((_q, r, code) => code === 'invalid_json'),
  },
  {
    name: 'accept a wrong Content-Type',
    category: 'validation',
    args: ['--phases', 'examples,negative', ...only('createWebhook')],
    response: accept((_q, r) => r.status === 415),
  },
  {
    name: 'refuse valid data',
    category: 'validation',
    args: [...EX, ...only('calculatePrice')],
    response: on('calculatePrice', (_q, r) =>
      r.status === 200
        ? withJson(
            r,
            { error: { type: 'invalid_request_error', code: 'invalid_parameter', message: 'Invalid.', param: 'type' } },
            400,
          )
        : undefined,
    ),
  },
  {
    name: 'key limit not enforced',
    category: 'validation',
    args: [...STATEFUL, ...only('createApiKey')],
    response: accept((_q, _r, code) => code === 'key_limit_exceeded'),
  },
  {
    name: 'an empty balance is not refused',
    category: 'validation',
    args: [...STATEFUL, ...only('createAsyncTranscription', 'getTranscriptionStatus', 'calculatePrice')],
    response: accept((_q, r) => r.status === 402),
  },
  {
    name: 'rate limit not enforced',
    category: 'validation',
    args: [...STATEFUL, ...only('listModels', 'getBillingUsage')],
    response: accept((_q, r) => r.status === 429),
  },
  // state machine
  {
    name: 'progress going backwards',
    category: 'state machine',
    args: [...STATEFUL, ...only('getTranscriptionStatus', 'createAsyncTranscription', 'calculatePrice')],
    response: on('getTranscriptionStatus', (q, r, memory) =>
      body(
        200,
        inData((t) => {
          if (t.status === 'completed' || t.status === 'failed' || t.status === 'cancelled') return;
          const seen = Number(memory.state.get(q.path) ?? 0);
          memory.state.set(q.path, seen + 1);
          t.status = 'processing';
          t.progress = Math.max(0, 90 - seen * 30);
        }),
      )(q, r, memory),
    ),
  },
  {
    name: 'completed without result',
    category: 'state machine',
    args: [...STATEFUL, ...only('getTranscriptionStatus', 'createAsyncTranscription', 'calculatePrice')],
    response: on(
      'getTranscriptionStatus',
      body(
        200,
        inData((t) => t.status === 'completed' && delete t.result),
      ),
    ),
  },
  {
    name: 'processing back to ready',
    category: 'state machine',
    args: [...STATEFUL, ...only('getTranscriptionStatus', 'createAsyncTranscription', 'calculatePrice')],
    // the first two reads of a task say processing (the create's link, the first poll), the third ready, then the truth
    response: on('getTranscriptionStatus', (q, r, memory) =>
      body(
        200,
        inData((t) => {
          const seen = Number(memory.state.get(q.path) ?? 0);
          memory.state.set(q.path, seen + 1);
          if (seen > 2) return;
          t.status = seen < 2 ? 'processing' : 'ready';
          t.progress = 0;
          delete t.result;
        }),
      )(q, r, memory),
    ),
  },
  {
    name: 'cancel of a final task answers 200',
    category: 'state machine',
    args: [...STATEFUL, ...only('cancelTranscription', 'createAsyncTranscription', 'getTranscriptionStatus')],
    response: on('cancelTranscription', (_q, r, memory) =>
      r.status === 409 ? memory.lastGood('getTranscriptionStatus') : undefined,
    ),
  },
  {
    name: 'a completed task goes back to processing',
    category: 'state machine',
    args: [...STATEFUL, ...only('getTranscriptionStatus', 'createAsyncTranscription', 'calculatePrice')],
    // the first completed read passes; every later read of that task says processing again (progress kept at 100)
    response: on('getTranscriptionStatus', (q, r, memory) =>
      body(
        200,
        inData((t) => {
          if (!memory.state.has(q.path)) {
            if (t.status === 'completed') memory.state.set(q.path, true);
            return;
          }
          t.status = 'processing';
          t.progress = 100;
          for (const field of ['result', 'cost', 'minutes_billed', 'duration_minutes', 'completed_at']) delete t[field];
        }),
      )(q, r, memory),
    ),
  },
  // status and error maps (schema-independent)
  {
    name: 'status-map swap: a 404 typed invalid_request_error',
    category: 'errors',
    args: [...EX, ...only('getTranscriptionStatus')],
    response: on(
      'getTranscriptionStatus',
      body(
        404,
        errorEdit((e) => (e.type = 'invalid_request_error')),
      ),
    ),
  },
  {
    name: 'code↔status swap: a 401 coded not_found',
    category: 'errors',
    args: [...EX, ...only('listWebhooks')],
    response: on(
      'listWebhooks',
      body(
        401,
        errorEdit((e) => (e.code = 'not_found')),
      ),
    ),
  },
  // billing: what the balance shows around reservations
  {
    name: 'a cancelled task keeps its reservation',
    category: 'billing',
    args: [
      ...STATEFUL,
      ...only('createAsyncTranscription', 'getTranscriptionStatus', 'cancelTranscription', 'calculatePrice'),
    ],
    response: (q, r, memory) => {
      const account = q.headers.authorization ?? '';
      if (q.operation?.id === 'cancelTranscription' && r.status === 200) memory.state.set(`held ${account}`, true);
      if (q.operation?.id !== 'calculatePrice' || !memory.state.has(`held ${account}`)) return undefined;
      return body(200, (v) => (withBalance(v, (b) => (b.available_credit = Number(b.available_credit) - 1.5)), v))(
        q,
        r,
        memory,
      );
    },
  },
  {
    name: 'a completed task is charged again on later reads',
    category: 'billing',
    args: [...STATEFUL, ...only('getTranscriptionStatus', 'createAsyncTranscription', 'calculatePrice')],
    // from the third completed read of an account's task on, its balance shows the cost taken a second time
    response: (q, r, memory) => {
      const account = q.headers.authorization ?? '';
      const value = json(r) as { data?: { status?: string; cost?: number } } | undefined;
      if (q.operation?.id === 'getTranscriptionStatus' && value?.data?.status === 'completed') {
        const seen = (memory.state.get(`completed ${account}`) as { reads: number } | undefined) ?? { reads: 0 };
        memory.state.set(`completed ${account}`, { reads: seen.reads + 1, cost: value.data.cost ?? 1 });
      }
      const completed = memory.state.get(`completed ${account}`) as { reads: number; cost: number } | undefined;
      if (q.operation?.id !== 'calculatePrice' || !completed || completed.reads < 3) return undefined;
      return body(200, (v) =>
        withBalance(v, (b) => {
          b.balance = Number(b.balance) - completed.cost;
          b.available_credit = Number(b.available_credit) - completed.cost;
        }),
      )(q, r, memory);
    },
  },
  {
    name: 'no reservation while a stream ticket is unused',
    category: 'billing',
    args: [...STATEFUL, ...only('createStreamSession', 'calculatePrice')],
    // the balance never shows a hold: available is always balance (+ the credit limit when the overdraft is on)
    response: on(
      'calculatePrice',
      body(200, (v) =>
        withBalance(v, (b) => {
          b.available_credit = Number(b.balance) + (b.overdraft_enabled ? Number(b.credit_limit) : 0);
        }),
      ),
    ),
  },
  {
    name: 'the ledger shows a second capture',
    category: 'billing',
    args: [...STATEFUL, ...only('createStreamSession', 'calculatePrice', 'listAccountLedger')],
    response: on(
      'listAccountLedger',
      body(200, (v) => {
        const entries = (v.data as Array<Record<string, unknown>> | undefined) ?? [];
        const doubled = entries.flatMap((e) => (e.kind === 'capture' ? [e, { ...e, id: randomUUID() }] : [e]));
        return { ...v, data: doubled };
      }),
    ),
  },
  {
    name: 'stream minutes rounded down',
    category: 'billing',
    args: [...STATEFUL, ...only('createStreamSession', 'calculatePrice')],
    frame: (data) =>
      data.replace(
        /("type":"session\.completed".*"minutes_billed":)(\d+)/,
        (_m, head: string, n: string) => `${head}${Math.max(0, Number(n) - 1)}`,
      ),
  },
  // other rules only prose states
  {
    name: 'X-Request-Id not echoed',
    category: 'headers',
    args: [...STATEFUL, ...only('createStreamSession', 'calculatePrice')],
    response: (q, r) =>
      q.headers['x-request-id'] ? { ...r, headers: { ...r.headers, 'x-request-id': randomUUID() } } : undefined,
  },
  {
    name: 'a list page says has_more without a cursor',
    category: 'body',
    args: [...EX, ...only('listApiKeys')],
    response: on(
      'listApiKeys',
      body(200, (v) => ({ ...v, has_more: true, next_cursor: null })),
    ),
  },
  {
    name: 'sync create answered as already processing',
    category: 'state machine',
    args: [...EX, ...only('createSyncTranscription')],
    response: on(
      'createSyncTranscription',
      body(
        200,
        inData((t) => {
          t.status = 'processing';
          t.progress = 30;
        }),
      ),
    ),
  },
  // SSE (exercised only where the server answers chat)
  {
    name: 'SSE without [DONE]',
    category: 'sse',
    args: ['--phases', 'sse'],
    response: (_q, r) =>
      /text\/event-stream/.test(r.headers['content-type'] ?? '')
        ? { ...r, body: Buffer.from(r.body.toString().replace('data: [DONE]\n\n', '')) }
        : undefined,
  },
  {
    name: 'SSE role chunk missing',
    category: 'sse',
    args: ['--phases', 'sse'],
    response: (_q, r) =>
      /text\/event-stream/.test(r.headers['content-type'] ?? '')
        ? { ...r, body: Buffer.from(r.body.toString().split('\n\n').slice(1).join('\n\n')) }
        : undefined,
  },
  // stream
  {
    name: 'wrong stream message type',
    category: 'stream',
    args: ['--phases', 'streaming'],
    frame: (data) => data.replace('"session.started"', '"session.begun"'),
  },
  { name: 'reused ticket accepted', category: 'stream', args: ['--phases', 'streaming'], replayReusedTicket: true },
  // webhooks
  {
    name: 'bad webhook signature',
    category: 'webhooks',
    args: [
      ...STATEFUL,
      ...only('createWebhook', 'testWebhook', 'createAsyncTranscription', 'getTranscriptionStatus', 'calculatePrice'),
    ],
    webhook: (h) => ({ ...h, 'webhook-signature': 'v1,AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=' }),
  },
  {
    name: 'webhook-id differs from the event id',
    category: 'webhooks',
    args: [
      ...STATEFUL,
      ...only('createWebhook', 'testWebhook', 'createAsyncTranscription', 'getTranscriptionStatus', 'calculatePrice'),
    ],
    webhook: (h) => ({ ...h, 'webhook-id': randomUUID() }),
  },
  // billing
  {
    name: 'charge floor instead of ceil',
    category: 'billing',
    args: [
      ...STATEFUL,
      ...only(
        'getTranscriptionStatus',
        'createAsyncTranscription',
        'calculatePrice',
        'getAccount',
        'listAccountLedger',
      ),
    ],
    response: on(
      'getTranscriptionStatus',
      body(
        200,
        inData(
          (t) =>
            typeof t.cost === 'number' &&
            typeof t.minutes_billed === 'number' &&
            t.minutes_billed > 0 &&
            (t.cost = (t.cost / t.minutes_billed) * Math.floor(Number(t.duration_minutes ?? 0))),
        ),
      ),
    ),
  },
  // outcomes the document fixes beyond the schema
  {
    name: 'queue priced above lightning',
    category: 'billing',
    args: [...STATEFUL, ...only('calculatePrice')],
    response: on('calculatePrice', (q, r) => {
      if (!/"priority":"queue"/.test(q.body.toString('utf8'))) return undefined;
      return body(200, (v) => ({ ...v, amount: Number(v.amount) * 10 }))(q, r, undefined as never);
    }),
  },
  {
    name: "a dead link's task fails with another code",
    category: 'state',
    args: STATEFUL,
    response: on(
      'getTranscriptionStatus',
      body(
        200,
        inData((t) => {
          const error = t.error as { code?: string } | null | undefined;
          if (error?.code === 'download_failed') error.code = 'task_failed';
        }),
      ),
    ),
  },
  {
    name: 'a webhook that answered 410 stays enabled',
    category: 'webhooks',
    args: [...STATEFUL, ...only('createWebhook', 'testWebhook', 'listWebhooks')],
    response: on(
      'listWebhooks',
      body(200, (v) => {
        for (const hook of (v.data as Record<string, unknown>[] | undefined) ?? []) {
          hook.enabled = true;
          hook.disabled_reason = null;
        }
        return v;
      }),
    ),
  },
  {
    name: 'a webhook update of a blocked account is 403',
    category: 'auth',
    args: [...STATEFUL, ...only('createWebhook', 'updateWebhook', 'blockAccount', 'unblockAccount', 'listModels')],
    response: on('updateWebhook', status(409, 403)),
  },
  {
    name: 'an unknown chat model is 400',
    category: 'validation',
    args: [...STATEFUL, ...only('createChatCompletion', 'calculatePrice')],
    response: on('createChatCompletion', status(404, 400)),
  },
  {
    name: 'a json_object answer in prose',
    category: 'sse',
    args: ['--phases', 'sse'],
    response: on(
      'createChatCompletion',
      body(200, (v) => {
        const choice = (v.choices as { message?: { content?: unknown } }[] | undefined)?.[0];
        if (choice?.message) choice.message.content = 'Here is a cat.';
        return v;
      }),
    ),
  },
  {
    name: 'a price with three decimals',
    category: 'billing',
    args: [...EX, ...only('calculatePrice')],
    response: on(
      'calculatePrice',
      body(200, (v) => ({ ...v, amount: Number(v.amount) + 0.001 })),
    ),
  },
  {
    name: 'a v2 task back to pending once completed',
    category: 'state',
    args: [...STATEFUL, ...only('createV2Transcription', 'getV2Transcription', 'downloadV2TranscriptionResult')],
    response: on(
      'getV2Transcription',
      body(
        200,
        inData((t) => {
          if (t.status === 'completed') t.status = 'pending';
        }),
      ),
    ),
  },
  // a named --slow case: only it provokes file_too_large, so only it can tell this server apart
  {
    name: 'an upload over the size limit refused as unsupported_format',
    category: 'status',
    args: [...STATEFUL, '--slow', ...only('createSyncTranscription')],
    response: on('createSyncTranscription', (_q, r) => {
      const value = json(r) as { error?: { code?: unknown } } | undefined;
      return r.status === 400 && value?.error?.code === 'file_too_large'
        ? withJson(r, { ...value, error: { ...value.error, code: 'unsupported_format' } })
        : undefined;
    }),
  },
];
