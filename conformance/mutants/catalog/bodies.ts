// Mutants that drop, retype or add a field of an answer body, or break the error envelope.
import { randomUUID } from 'node:crypto';
import { type Mutant } from '../proxy.ts';
import { on, body, drop, inData, errorEdit, EX, STATEFUL, only } from './operators.ts';

export const BODIES: Mutant[] = [
  // bodies
  {
    name: 'model list without `object`',
    rules: ['models.list-shape'],
    category: 'body',
    args: [...EX, ...only('listModels')],
    response: on('listModels', body(200, drop('object'))),
  },
  {
    name: 'task without `progress`',
    rules: ['overview.status-and-progress'],
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
    rules: ['billing.calculate.response'],
    category: 'body',
    args: [...EX, ...only('calculatePrice')],
    response: on(
      'calculatePrice',
      body(200, (v) => ({ ...v, amount: String(v.amount) })),
    ),
  },
  {
    name: 'undocumented model status',
    rules: ['models.response'],
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
    rules: ['stt.status.response-200'],
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
    rules: ['webhooks.secret-whsec-once'],
    category: 'body',
    args: [...EX, ...only('createWebhook')],
    response: on('createWebhook', body(201, drop('secret'))),
  },
  {
    name: 'v3 error without `param`',
    rules: ['errors.v3.envelope'],
    category: 'body',
    args: ['--phases', 'negative', ...only('createWebhook')],
    response: body(
      400,
      errorEdit((e) => delete e.param),
    ),
  },
  {
    name: 'param names another field',
    rules: ['errors.v3.param-names-field'],
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
    rules: ['errors.v2.validation-body'],
    category: 'body',
    args: ['--phases', 'negative', ...only('calculateV2TranscriptionCost')],
    response: body(400, (v) => (typeof v.error === 'string' ? (delete v.errors, v) : v)),
  },
  {
    name: 'stack trace in an error',
    rules: ['errors.v3.no-stack-traces'],
    category: 'body',
    args: ['--phases', 'negative', ...only('createWebhook')],
    response: body(
      400,
      errorEdit((e) => (e.message = `${String(e.message)}\n    at validate (/srv/app/handlers.js:42:7)`)),
    ),
  },
  // other rules only prose states
  {
    name: 'X-Request-Id not echoed',
    rules: ['api.request-id-echo'],
    category: 'headers',
    args: [...STATEFUL, ...only('createStreamSession', 'calculatePrice')],
    response: (q, r) =>
      q.headers['x-request-id'] ? { ...r, headers: { ...r.headers, 'x-request-id': randomUUID() } } : undefined,
  },
  {
    name: 'a list page says has_more without a cursor',
    rules: ['api.list-shape'],
    category: 'body',
    args: [...EX, ...only('listApiKeys')],
    response: on(
      'listApiKeys',
      body(200, (v) => ({ ...v, has_more: true, next_cursor: null })),
    ),
  },
  {
    name: 'sync create answered as already processing',
    rules: ['states.v3.rule1.sync-create-ready-progress-0'],
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
];
