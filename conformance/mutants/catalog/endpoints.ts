// Mutants of the endpoint list and of the resources' documented fields: each endpoint answered with another success
// status than the one the document gives it, and each field of a task, a session, a usage report or a quote turned
// into a value its documented type or form does not allow. One operator each (`status`, `body`), on answers the
// examples phase (or the scenario that creates the resource) meets.
import { type Mutant } from '../proxy.ts';
import { on, body, inData, withBalance, endpointStatus, EX, STATEFUL, only } from './operators.ts';

const TASK_SCENARIO = [
  ...STATEFUL,
  ...only('createAsyncTranscription', 'getTranscriptionStatus', 'calculatePrice', 'createSyncTranscription'),
];
const V2_SCENARIO = [
  ...STATEFUL,
  ...only('createV2Transcription', 'getV2Transcription', 'downloadV2TranscriptionResult'),
];
/**
 * The v2 scenario for a mutant that hides the task's completion: the suite then polls until its task timeout, so it
 * is given 30 s (the reference server completes the scenario's task in a few) instead of the default 120.
 */
const V2_SCENARIO_UNFINISHED = [...V2_SCENARIO, '--task-timeout', '30'];

/** A task read from the status endpoint with one field edited. */
const taskField = (name: string, rules: string[], edit: (task: Record<string, unknown>) => void): Mutant => ({
  name,
  category: 'body',
  rules,
  args: [...EX, ...only('createSyncTranscription')],
  response: on('createSyncTranscription', body(200, inData(edit))),
});

export const ENDPOINTS: Mutant[] = [
  endpointStatus('getHealth', 200, 202, ['endpoints.list.health', 'versioning.health-no-prefix']),
  endpointStatus('createSyncTranscription', 200, 202, ['endpoints.list.stt-sync', 'modes.sync.endpoint']),
  endpointStatus('createAsyncTranscriptionUpload', 202, 200, ['endpoints.list.stt-async', 'modes.async.endpoint']),
  endpointStatus('getTranscriptionStatus', 200, 201, ['endpoints.list.stt-status'], TASK_SCENARIO),
  endpointStatus('createChatCompletion', 200, 201, ['endpoints.list.chat']),
  endpointStatus('createEmbedding', 200, 201, ['endpoints.list.embeddings']),
  endpointStatus('calculatePrice', 200, 201, ['endpoints.list.billing-calculate']),
  endpointStatus('calculateV2TranscriptionCost', 200, 201, ['endpoints.list.v2-calculate']),
  endpointStatus('getV2Transcription', 200, 201, ['endpoints.list.v2-read'], V2_SCENARIO),
  endpointStatus('createV2ChatCompletion', 200, 201, ['endpoints.list.v2-chat']),
  endpointStatus('getBillingUsage', 200, 201, ['endpoints.list.v1-usage']),
  endpointStatus('createApiKey', 201, 200, ['auth.v3.key-endpoints', 'errors.status-map.2xx-success']),
  endpointStatus('listAccounts', 200, 201, ['admin.provisioning']),
  endpointStatus(
    'deleteWebhook',
    200,
    204,
    ['webhooks.manage-endpoints'],
    [...STATEFUL, ...only('createWebhook', 'deleteWebhook')],
  ),
  // a task's fields
  taskField('task id not a UUID', ['transcription.v3.id-uuid'], (t) => (t.id = `task-${String(t.id).slice(0, 8)}`)),
  taskField('task status outside the state list', ['transcription.v3.status-enum', 'states.v3.state-list'], (t) => {
    t.status = 'done';
  }),
  taskField('task progress 150', ['transcription.v3.progress-range'], (t) => (t.progress = 150)),
  taskField('task source_type "file"', ['transcription.v3.source-type'], (t) => (t.source_type = 'file')),
  taskField('task file_size as a string', ['transcription.v3.filename-and-size'], (t) => {
    t.file_size = `${String(t.file_size)} bytes`;
  }),
  taskField('task mode "batch"', ['transcription.v3.priority-mode-diarization'], (t) => (t.mode = 'batch')),
  taskField(
    'task created_at not a timestamp',
    ['transcription.v3.timestamps-iso', 'endpoints.timestamps-iso-utc'],
    (t) => {
      t.created_at = new Date(String(t.created_at)).toUTCString();
    },
  ),
  taskField('task created_at with an offset instead of Z', ['api.timestamps-utc-z'], (t) => {
    t.created_at = String(t.created_at).replace(/(\.\d+)?Z$/, '+03:00');
  }),
  taskField('task field in camelCase', ['api.snake-case'], (t) => {
    t.sourceType = t.source_type;
    delete t.source_type;
  }),
  {
    name: 'task result duration as a string',
    category: 'body',
    rules: ['result.v3.text-and-duration'],
    args: TASK_SCENARIO,
    response: on(
      'getTranscriptionStatus',
      body(
        200,
        inData((t) => {
          if (!t.result || typeof t.result !== 'object') return;
          const result = t.result as Record<string, unknown>;
          result.duration = `${String(result.duration)}s`;
        }),
      ),
    ),
  },
  {
    name: 'task read not wrapped in data',
    category: 'body',
    rules: ['transcription.v3.wrapped-in-data'],
    args: [...EX, ...only('createSyncTranscription')],
    response: on(
      'createSyncTranscription',
      body(200, (v) => v.data),
    ),
  },
  // a stream session
  {
    name: 'stream session without session_id',
    category: 'body',
    rules: ['stream.session.fields'],
    args: [...EX, ...only('createStreamSession')],
    response: on(
      'createStreamSession',
      body(201, (v) => (delete v.session_id, v)),
    ),
  },
  {
    name: 'stream session url over http',
    category: 'body',
    rules: ['stream.session.url-form'],
    args: [...EX, ...only('createStreamSession')],
    response: on(
      'createStreamSession',
      body(201, (v) => ({ ...v, stream_url: String(v.stream_url).replace(/^ws/, 'http') })),
    ),
  },
  // v2
  {
    name: 'v2 read not wrapped in data',
    category: 'body',
    rules: ['transcription.v2.wrapped-in-data', 'v2.read.response-200'],
    args: V2_SCENARIO_UNFINISHED,
    response: on(
      'getV2Transcription',
      body(200, (v) => v.data),
    ),
  },
  {
    name: 'v2 status "done"',
    category: 'body',
    rules: ['transcription.v2.status-values', 'states.v2.states-seen'],
    args: V2_SCENARIO_UNFINISHED,
    response: on(
      'getV2Transcription',
      body(
        200,
        inData((t) => (t.status = t.status === 'completed' ? 'done' : t.status)),
      ),
    ),
  },
  {
    name: 'v2 read without normalization_enabled',
    category: 'body',
    rules: ['transcription.v2.fields'],
    args: V2_SCENARIO,
    response: on(
      'getV2Transcription',
      body(
        200,
        inData((t) => delete t.normalization_enabled),
      ),
    ),
  },
  {
    name: 'v2 quote usage minutes as strings',
    category: 'body',
    rules: ['v2.calculate.balance-fields'],
    args: [...EX, ...only('calculateV2TranscriptionCost')],
    response: on(
      'calculateV2TranscriptionCost',
      body(200, (v) =>
        withBalance(v, (b) => {
          const usage = b.usage_current_month as Record<string, unknown> | undefined;
          if (usage) usage.minutes_queue = String(usage.minutes_queue);
        }),
      ),
    ),
  },
  {
    name: 'v2 quote overdraft_enabled as "yes"',
    category: 'body',
    rules: ['v2.calculate.balance-optional-overdraft'],
    args: [...EX, ...only('calculateV2TranscriptionCost')],
    response: on(
      'calculateV2TranscriptionCost',
      body(200, (v) => withBalance(v, (b) => (b.overdraft_enabled = 'yes'))),
    ),
  },
  // usage statistics
  {
    name: 'usage period in another date form',
    category: 'body',
    rules: ['usage.period-dates'],
    args: [...EX, ...only('getBillingUsage')],
    response: on(
      'getBillingUsage',
      body(200, (v) => {
        const period = v.period as Record<string, unknown>;
        period.from = String(period.from).split('-').reverse().join('.');
        return v;
      }),
    ),
  },
  {
    name: 'usage by_priority without queue',
    category: 'body',
    rules: ['usage.by-priority'],
    args: [...EX, ...only('getBillingUsage')],
    response: on(
      'getBillingUsage',
      body(200, (v) => (delete (v.by_priority as Record<string, unknown>).queue, v)),
    ),
  },
  {
    name: 'usage by_status counts as strings',
    category: 'body',
    rules: ['usage.by-status', 'states.v2.failed-and-cancelled'],
    args: [...EX, ...only('getBillingUsage')],
    response: on(
      'getBillingUsage',
      body(200, (v) => {
        const counts = v.by_status as Record<string, unknown>;
        counts.cancelled = String(counts.cancelled);
        return v;
      }),
    ),
  },
  {
    name: 'usage without total_cost',
    category: 'body',
    rules: ['usage.response-200'],
    args: [...EX, ...only('getBillingUsage')],
    response: on(
      'getBillingUsage',
      body(200, (v) => (delete v.total_cost, v)),
    ),
  },
  // chat
  {
    name: 'chat usage tokens as fractions',
    category: 'body',
    rules: ['chat.completion.usage-integers'],
    args: [...EX, ...only('createChatCompletion')],
    response: on(
      'createChatCompletion',
      body(200, (v) => {
        const usage = v.usage as Record<string, number> | undefined;
        if (usage && typeof usage.prompt_tokens === 'number') usage.prompt_tokens += 0.5;
        return v;
      }),
    ),
  },
  {
    name: 'v2 chat answer without choices',
    category: 'body',
    rules: ['v2.chat.response-200'],
    args: [...EX, ...only('createV2ChatCompletion')],
    response: on(
      'createV2ChatCompletion',
      body(200, (v) => (delete v.choices, v)),
    ),
  },
];
