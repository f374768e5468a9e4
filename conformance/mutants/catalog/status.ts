// Mutants that change a status code (or answer a success with a crash).
import { json, withJson, type Mutant } from '../proxy.ts';
import { on, status, header, EX, STATEFUL, only } from './operators.ts';

export const STATUS: Mutant[] = [
  // status codes
  {
    name: 'listModels 200 → 201',
    rules: ['endpoints.list.models'],
    category: 'status',
    args: [...EX, ...only('listModels')],
    response: on('listModels', status(200, 201)),
  },
  {
    name: 'createWebhook 201 → 200',
    rules: ['webhooks.registration-endpoints'],
    category: 'status',
    args: [...EX, ...only('createWebhook')],
    response: on('createWebhook', status(201, 200)),
  },
  {
    name: 'createAsyncTranscription 202 → 200',
    rules: ['stt.async.response-202'],
    category: 'status',
    args: [...STATEFUL, ...only('createAsyncTranscription', 'getTranscriptionStatus', 'calculatePrice')],
    response: on('createAsyncTranscription', status(202, 200)),
  },
  {
    name: 'unknown task 404 → 403',
    rules: ['stt.status.absent-or-foreign-404'],
    category: 'status',
    args: [...EX, ...only('getTranscriptionStatus')],
    response: on('getTranscriptionStatus', status(404, 403)),
  },
  {
    name: 'foreign id 404 → 403',
    rules: ['stt.status.never-403-for-foreign'],
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
    rules: ['errors.status-map.429-retry-after'],
    category: 'status',
    args: [...STATEFUL, ...only('listModels', 'getBillingUsage')],
    response: header((h, r) => (r.status === 429 ? (delete h['retry-after'], h) : undefined)),
  },
  {
    name: 'unsupported method 405 → 404',
    rules: ['api.unsupported-method-405'],
    category: 'status',
    args: [...EX, ...only('listWebhooks')],
    response: (q, r) => (r.status === 405 ? { ...r, status: 404 } : undefined),
  },
  {
    name: '405 without Allow',
    rules: ['errors.code-status.method-not-allowed-405'],
    category: 'status',
    args: [...EX, ...only('listApiKeys')],
    response: header((h, r) => (r.status === 405 ? (delete h.allow, h) : undefined)),
  },
  {
    name: 'invalid key 401 → 403',
    rules: ['auth.v3.invalid-key-401'],
    category: 'status',
    args: [...EX, ...only('listWebhooks')],
    response: on('listWebhooks', status(401, 403)),
  },
  {
    name: 'validation 400 → 422',
    rules: ['errors.code-status.validation-400'],
    category: 'status',
    args: ['--phases', 'negative', ...only('calculatePrice')],
    response: on('calculatePrice', status(400, 422)),
  },
  {
    name: 'a crash: listWebhooks 200 → 500',
    rules: ['errors.status-map.5xx'],
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
  // a named --slow case: only it provokes file_too_large, so only it can tell this server apart
  {
    name: 'an upload over the size limit refused as unsupported_format',
    rules: ['errors.code.file-too-large'],
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
