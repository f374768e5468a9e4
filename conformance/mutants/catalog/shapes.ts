// Mutants of documented shapes and statuses, one operator each (a field dropped or changed, a status or an error's
// type or code changed), on answers the examples phase meets: each breaks one rule the ledger names, so the catalog
// tells which of the rule's checks can fail on it.
import { type Mutant } from '../proxy.ts';
import { on, status, body, drop, errorEdit, EX, STATEFUL, only } from './operators.ts';

export const SHAPES: Mutant[] = [
  // status changed
  {
    name: 'health refused without credentials (200 → 401)',
    category: 'status',
    rules: ['health.no-auth'],
    args: [...EX, ...only('getHealth')],
    response: on('getHealth', status(200, 401)),
  },
  {
    name: 'createStreamSession 201 → 200',
    category: 'status',
    rules: ['stt.stream.response-201'],
    args: [...EX, ...only('createStreamSession')],
    response: on('createStreamSession', status(201, 200)),
  },
  {
    name: 'createSyncTranscription 200 → 201',
    category: 'status',
    rules: ['stt.sync.response-200-ready'],
    args: [...EX, ...only('createSyncTranscription')],
    response: on('createSyncTranscription', status(200, 201)),
  },
  {
    name: 'createV2Transcription 201 → 200',
    category: 'status',
    rules: ['v2.create.response-201'],
    args: [...STATEFUL, ...only('createV2Transcription', 'getV2Transcription', 'downloadV2TranscriptionResult')],
    response: on('createV2Transcription', status(201, 200)),
  },
  // an error's type or code changed
  {
    name: 'status-map swap: a 401 typed invalid_request_error',
    category: 'errors',
    rules: ['errors.status-map.401'],
    args: [...EX, ...only('listWebhooks')],
    response: on(
      'listWebhooks',
      body(
        401,
        errorEdit((e) => (e.type = 'invalid_request_error')),
      ),
    ),
  },
  {
    name: 'status-map swap: a 400 typed authentication_error',
    category: 'errors',
    rules: ['errors.status-map.400'],
    args: ['--phases', 'negative', ...only('calculatePrice')],
    response: on(
      'calculatePrice',
      body(
        400,
        errorEdit((e) => (e.type = 'authentication_error')),
      ),
    ),
  },
  {
    name: 'code↔status swap: a 404 coded task_missing',
    category: 'errors',
    rules: ['errors.code-status.not-found-404'],
    args: [...EX, ...only('getTranscriptionStatus')],
    response: on(
      'getTranscriptionStatus',
      body(
        404,
        errorEdit((e) => (e.code = 'task_missing')),
      ),
    ),
  },
  {
    name: 'code↔status swap: a 415 coded invalid_parameter',
    category: 'errors',
    rules: ['errors.code-status.unsupported-media-type-415'],
    args: ['--phases', 'negative', ...only('createWebhook')],
    response: on(
      'createWebhook',
      body(
        415,
        errorEdit((e) => (e.code = 'invalid_parameter')),
      ),
    ),
  },
  {
    name: 'a v2 401 answered as FORBIDDEN',
    category: 'errors',
    rules: ['errors.v2.kind.unauthorized-401'],
    args: [...EX, ...only('calculateV2TranscriptionCost')],
    response: on(
      'calculateV2TranscriptionCost',
      body(401, (v) => ({ ...v, error: 'FORBIDDEN' })),
    ),
  },
  // a field dropped or changed
  {
    name: 'health with an undocumented status',
    category: 'body',
    rules: ['health.body'],
    args: [...EX, ...only('getHealth')],
    response: on(
      'getHealth',
      body(200, (v) => ({ ...v, status: 'fine' })),
    ),
  },
  {
    name: 'usage without by_status',
    category: 'body',
    rules: ['usage.fields'],
    args: [...EX, ...only('getBillingUsage')],
    response: on('getBillingUsage', body(200, drop('by_status'))),
  },
  {
    name: 'a webhook id that is not a UUID',
    category: 'body',
    rules: ['api.ids-uuid'],
    args: [...EX, ...only('createWebhook')],
    response: on(
      'createWebhook',
      body(201, (v) => ({ ...v, id: 'wh_1' })),
    ),
  },
  {
    name: 'v2 quote without its balance',
    category: 'body',
    rules: ['v2.calculate.result-fields'],
    args: [...EX, ...only('calculateV2TranscriptionCost')],
    response: on('calculateV2TranscriptionCost', body(200, drop('balance'))),
  },
  {
    name: 'a plain chat answer not typed chat.completion',
    category: 'body',
    rules: ['chat.completion.plain-shape'],
    args: [...EX, ...only('createChatCompletion')],
    response: on(
      'createChatCompletion',
      body(200, (v) => ({ ...v, object: 'chat.answer' })),
    ),
  },
  // a stream frame changed
  {
    name: 'session.completed without its cost',
    category: 'stream',
    rules: ['stream.server.session-completed'],
    args: ['--phases', 'streaming'],
    frame: (data) => (/"type":"session\.completed"/.test(data) ? data.replace(/,"cost":[0-9.]+/, '') : data),
  },
];
