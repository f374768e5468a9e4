// Mutants of a task's life as the status reads show it: where the result is read and when it is there, what the
// result carries for the options sent, the edges of the v3 state machine (recognition starting, finishing, a cancel
// while downloading, failures before, during and after the download, a failed task taken up again), the v2 task's
// speakers, analysis, timestamps and result links, an async task's default priority, a link behind five redirects,
// the JSON create, and a task gone once its webhook went out.
import { json, withJson, type Memory, type Mutant, type ProxyRequest, type ProxyResponse } from '../proxy.ts';
import { on, body, inData, EX, STATEFUL, only } from './operators.ts';

/** The lifecycle scenario alone (an upload polled to completed, with diarization and word confidences). */
const UPLOAD_TASK = [...STATEFUL, ...only('createAsyncTranscription', 'getTranscriptionStatus')];
/** The link scenarios: a link task, a slow link read while it downloads and cancelled, an upload meanwhile. */
const LINKS = [...STATEFUL, ...only('createAsyncTranscription', 'getTranscriptionStatus', 'cancelTranscription')];
/** The link outcomes: a dead link and six redirects fail, five redirects complete; each read again once ended. */
const OUTCOMES = [...STATEFUL, ...only('createAsyncTranscription', 'getTranscriptionStatus', 'createWebhook')];
const V2 = [...STATEFUL, ...only('createV2Transcription', 'getV2Transcription')];
/** The v2 free-quota scenario, whose second task is created with a `prompt` (needs the chat model listed). */
const V2_ANALYSIS = [
  ...STATEFUL,
  ...only(
    'createV2Transcription',
    'getV2Transcription',
    'createV2TranscriptChatCompletion',
    'getAccount',
    'topUpAccount',
    'listModels',
  ),
];

type Task = Record<string, unknown>;

const idOf = (q: ProxyRequest) => q.path.split('?')[0]!.split('/').at(-1)!;

/** Edits every v3 status read (the task, its path's id and the mutant's memory at hand). */
const statusRead = (edit: (task: Task, id: string, memory: Memory) => void) =>
  on('getTranscriptionStatus', (q, r, memory) =>
    body(
      200,
      inData((t) => edit(t, idOf(q), memory)),
    )(q, r, memory),
  );

/** Edits every v2 task read. */
const v2Read = (edit: (task: Task) => void) =>
  on(
    'getV2Transcription',
    body(
      200,
      inData((t) => edit(t)),
    ),
  );

const UNFINISHED = new Set(['created', 'downloading', 'ready', 'processing']);

/** The first read of each task that says `failed` shows it still `state`, its error already set (status later). */
const failureFirstLeftIn = (state: string) =>
  statusRead((t, id, memory) => {
    if (t.status !== 'failed' || memory.state.has(`failed:${id}`)) return;
    memory.state.set(`failed:${id}`, true);
    t.status = state;
    delete t.completed_at;
  });

const words = (t: Task) => {
  const result = t.result as { words?: unknown } | undefined;
  return Array.isArray(result?.words) ? (result.words as Task[]) : [];
};

const renumberSpeaker = (value: unknown) =>
  typeof value === 'string' ? value.replace(/^SPEAKER_0*(\d+)$/, 'speaker_$1') : value;

/** Webhook deliveries of `transcription.completed` seen on their way, by task id (one mutant, one run). */
const delivered = new Set<string>();

export const LIFECYCLE: Mutant[] = [
  // where and when the result is there
  {
    name: 'the status endpoint answers a completed task with result null',
    category: 'state machine',
    rules: ['overview.result-by-polling'],
    args: UPLOAD_TASK,
    // a server that keeps the result for the result endpoint and the webhook only
    response: statusRead((t) => {
      if (t.status === 'completed') t.result = null;
    }),
  },
  {
    name: 'a task carries an empty result before it completes',
    category: 'state machine',
    rules: ['transcription.v3.result-when-completed'],
    args: UPLOAD_TASK,
    response: statusRead((t) => {
      if (typeof t.status === 'string' && UNFINISHED.has(t.status)) t.result = { text: '', duration: 0 };
    }),
  },
  {
    name: 'a completed task first reads processing with its result (result written before the status)',
    category: 'state machine',
    rules: ['states.v3.edge.processing-completed'],
    args: UPLOAD_TASK,
    response: statusRead((t, id, memory) => {
      if (t.status !== 'completed' || memory.state.has(`completed:${id}`)) return;
      memory.state.set(`completed:${id}`, true);
      t.status = 'processing';
      for (const field of ['cost', 'minutes_billed', 'duration_minutes', 'completed_at']) delete t[field];
    }),
  },
  {
    name: 'recognition starts as downloading the stored media',
    category: 'state machine',
    rules: ['states.v3.edge.ready-processing'],
    args: UPLOAD_TASK,
    // a worker that fetches the task's media back from the shared store shows that as `downloading`, not `processing`
    response: statusRead((t) => {
      if (t.status === 'processing') t.status = 'downloading';
    }),
  },
  {
    name: 'progress reported as a fraction of 1',
    category: 'state machine',
    rules: ['states.v3.processing.progress-0-to-100'],
    args: UPLOAD_TASK,
    response: statusRead((t) => {
      if (typeof t.progress === 'number') t.progress = t.progress / 100;
    }),
  },
  {
    name: 'a v3 result given as a link instead of inline',
    category: 'state machine',
    rules: ['versioning.v3-url-inline'],
    args: UPLOAD_TASK,
    response: statusRead((t, id) => {
      if (t.status === 'completed' && t.result) t.result = `/v3/transcriptions/result/${id}?format=json`;
    }),
  },
  // what the result carries for the options sent
  {
    name: 'words dropped though word timestamps were asked for',
    category: 'derived',
    rules: ['result.v3.words-when-requested'],
    args: UPLOAD_TASK,
    response: statusRead((t) => {
      if (t.status === 'completed' && t.result && typeof t.result === 'object') delete (t.result as Task).words;
    }),
  },
  {
    name: 'word confidences dropped though asked for',
    category: 'derived',
    rules: ['params.output.confidence'],
    args: UPLOAD_TASK,
    response: statusRead((t) => {
      if (t.status === 'completed') for (const word of words(t)) delete word.confidence;
    }),
  },
  {
    name: 'speaker ids numbered speaker_n',
    category: 'shapes',
    rules: ['result.v3.speakers-structure'],
    args: UPLOAD_TASK,
    response: statusRead((t) => {
      const result = t.result as { speakers?: Task[]; segments?: Task[] } | undefined;
      if (t.status !== 'completed' || !Array.isArray(result?.speakers)) return;
      for (const item of [...result.speakers, ...(result.segments ?? []), ...words(t)]) {
        if ('id' in item) item.id = renumberSpeaker(item.id);
        if ('speaker' in item) item.speaker = renumberSpeaker(item.speaker);
      }
    }),
  },
  {
    name: 'a language given by its name',
    category: 'shapes',
    rules: ['transcription.v3.language-code'],
    args: [...EX, ...only('createSyncTranscription')],
    response: on(
      'createSyncTranscription',
      body(
        200,
        inData((t) => {
          if (t.language === 'en') t.language = 'English';
        }),
      ),
    ),
  },
  // edges of the state machine
  {
    name: 'a cancel of a downloading task answers it still downloading',
    category: 'state machine',
    rules: ['states.v3.edge.downloading-cancelled'],
    args: LINKS,
    // the cancel is taken, but answered with the task as it was read last (the cancellation written afterwards)
    response: (q, r, memory) => {
      const id = idOf(q);
      if (q.operation?.id === 'getTranscriptionStatus') {
        const status = (json(r) as { data?: Task } | undefined)?.data?.status;
        if (typeof status === 'string') memory.state.set(`last:${id}`, status);
        return undefined;
      }
      if (q.operation?.id !== 'cancelTranscription' || memory.state.get(`last:${id}`) !== 'downloading')
        return undefined;
      return body(
        200,
        inData((t) => {
          if (t.status !== 'cancelled') return;
          t.status = 'downloading';
          delete t.completed_at;
        }),
      )(q, r, memory);
    },
  },
  {
    name: 'a failure before the download leaves the task created with its error',
    category: 'state machine',
    rules: ['states.v3.edge.created-failed'],
    args: OUTCOMES,
    response: failureFirstLeftIn('created'),
  },
  {
    name: 'a download failure leaves the task downloading with its error',
    category: 'state machine',
    rules: ['states.v3.edge.downloading-failed'],
    args: OUTCOMES,
    response: failureFirstLeftIn('downloading'),
  },
  {
    name: 'a failure of a ready task leaves it ready with its error',
    category: 'state machine',
    rules: ['states.v3.edge.ready-failed'],
    args: OUTCOMES,
    response: failureFirstLeftIn('ready'),
  },
  {
    name: 'a failed task is taken up again (downloading)',
    category: 'state machine',
    rules: ['states.v3.final.failed-never-changes'],
    args: OUTCOMES,
    // the first failed read passes; a retry sweeper then takes the task up again
    response: statusRead((t, id, memory) => {
      if (!memory.state.has(`failed:${id}`)) {
        if (t.status === 'failed') memory.state.set(`failed:${id}`, true);
        return;
      }
      t.status = 'downloading';
      t.progress = 0;
      for (const field of ['error', 'completed_at']) delete t[field];
    }),
  },
  {
    name: 'a link behind five redirects fails download_failed',
    category: 'state machine',
    rules: ['stt.async.redirects'],
    args: OUTCOMES,
    // a server that follows four redirects at most
    response: (q, r, memory) => {
      if (q.operation?.id === 'createAsyncTranscription' && r.status === 202) {
        const id = (json(r) as { transcription_id?: string } | undefined)?.transcription_id;
        if (id && q.body.toString('utf8').includes('/media/hops/5"')) memory.state.set(`hops5:${id}`, true);
        return undefined;
      }
      if (q.operation?.id !== 'getTranscriptionStatus' || !memory.state.has(`hops5:${idOf(q)}`)) return undefined;
      return body(
        200,
        inData((t) => {
          if (t.status !== 'completed') return;
          t.status = 'failed';
          t.error = {
            type: 'invalid_request_error',
            code: 'download_failed',
            message: 'The media could not be downloaded: too many redirects.',
            param: 'url',
          };
          for (const field of ['result', 'cost', 'minutes_billed', 'duration_minutes']) delete t[field];
        }),
      )(q, r, memory);
    },
  },
  // the async create
  {
    name: 'an async task created without priority runs lightning',
    category: 'defaults',
    rules: ['params.priority.default-queue'],
    args: LINKS,
    response: (q, r, memory) => {
      if (q.operation?.id === 'createAsyncTranscription' && r.status === 202) {
        const id = (json(r) as { transcription_id?: string } | undefined)?.transcription_id;
        if (id && /json/.test(q.headers['content-type'] ?? '') && !q.body.includes('"priority"'))
          memory.state.set(`default:${id}`, true);
        return undefined;
      }
      if (q.operation?.id !== 'getTranscriptionStatus' || !memory.state.has(`default:${idOf(q)}`)) return undefined;
      return body(
        200,
        inData((t) => {
          if (t.priority === 'queue') t.priority = 'lightning';
        }),
      )(q, r, memory);
    },
  },
  {
    name: 'refuse the output options of a JSON create',
    category: 'validation',
    rules: ['stt.async.json-url'],
    args: [...EX, ...only('createAsyncTranscription')],
    response: on('createAsyncTranscription', (q, r) =>
      r.status === 202 && /json/.test(q.headers['content-type'] ?? '') && q.body.includes('"output"')
        ? withJson(
            r,
            {
              error: {
                type: 'invalid_request_error',
                code: 'invalid_parameter',
                message: 'output is only accepted with a file.',
                param: 'output',
              },
            },
            400,
          )
        : undefined,
    ),
  },
  // v2
  {
    name: 'v2 speakers without their names',
    category: 'shapes',
    rules: ['transcription.v2.speakers-form'],
    args: V2,
    response: v2Read((t) => {
      if (Array.isArray(t.recognized_speakers))
        for (const speaker of t.recognized_speakers as Task[]) delete speaker.name;
    }),
  },
  {
    name: 'a v2 analysis without its prompt',
    category: 'shapes',
    rules: ['transcription.v2.ai-analysis'],
    args: V2_ANALYSIS,
    response: v2Read((t) => {
      if (t.ai_analysis && typeof t.ai_analysis === 'object') delete (t.ai_analysis as Task).prompt;
    }),
  },
  {
    name: 'a v2 task has its completed_at from creation on',
    category: 'derived',
    rules: ['transcription.v2.timestamps-nullable'],
    args: V2,
    response: v2Read((t) => {
      if (t.completed_at === null) t.completed_at = t.created_at;
    }),
  },
  {
    name: 'v2 results without the pdf link',
    category: 'shapes',
    rules: ['overview.v2.features'],
    args: V2,
    response: v2Read((t) => {
      if (t.results && typeof t.results === 'object') delete (t.results as Task).pdf;
    }),
  },
  {
    name: 'v2 result links gone at once (410)',
    category: 'state machine',
    rules: ['versioning.v2-source-url-links'],
    args: V2,
    response: (q, r) =>
      q.path.startsWith('/v2/results/') && r.status === 200
        ? withJson(r, { error: 'GONE', message: 'This link has expired.', errors: {} }, 410)
        : undefined,
  },
  // webhooks
  {
    name: 'a task is gone from the status endpoint once its completed event is delivered',
    category: 'webhooks',
    rules: ['webhooks.lost-event-harmless'],
    args: [...STATEFUL, ...only('createWebhook', 'createAsyncTranscription', 'getTranscriptionStatus')],
    webhook: (headers, text) => {
      try {
        const event = JSON.parse(text) as { type?: unknown; data?: { id?: unknown } };
        if (event.type === 'transcription.completed' && typeof event.data?.id === 'string')
          delivered.add(event.data.id);
      } catch {
        /* not JSON: passed on as it is */
      }
      return headers;
    },
    // a cleanup that drops the task after its event went out (taking effect after the read that saw it completed)
    response: (q, r: ProxyResponse, memory) => {
      if (q.operation?.id !== 'getTranscriptionStatus' || r.status !== 200) return undefined;
      const id = idOf(q);
      if (delivered.has(id) && memory.state.has(`seen:${id}`))
        return withJson(
          r,
          { error: { type: 'not_found_error', code: 'not_found', message: 'No such task.', param: 'id' } },
          404,
        );
      if ((json(r) as { data?: Task } | undefined)?.data?.status === 'completed') memory.state.set(`seen:${id}`, true);
      return undefined;
    },
  },
];
