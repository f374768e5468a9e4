// Mutants of the request forms the document lets in (a valid create refused, a required header let go), of the
// OpenAI-shaped answers (a field dropped or retyped), and of the stream settings (the session frame's settings
// ignored, the encoding renamed, a finalize that flushes nothing, a 4402 closed as 4429).
import { withJson, type Mutant, type ProxyResponse } from '../proxy.ts';
import { on, body, accept, frameOf, EX, STATEFUL, only } from './operators.ts';

const v3Invalid = (r: ProxyResponse, param: string) =>
  withJson(r, { error: { type: 'invalid_request_error', code: 'invalid_parameter', message: 'Invalid.', param } }, 400);
const v2Invalid = (r: ProxyResponse, field: string) =>
  withJson(
    r,
    { error: 'VALIDATION_ERROR', message: 'The given data was invalid.', errors: { [field]: ['Invalid.'] } },
    400,
  );

const STREAMING = ['--phases', 'streaming'];
const configOf = (m: Record<string, unknown>) => (m.config ?? {}) as Record<string, unknown>;

export const REQUESTS: Mutant[] = [
  // valid requests refused
  {
    name: 'refuse a multipart async create',
    category: 'validation',
    rules: ['stt.async.multipart-file'],
    args: ['--phases', 'examples,coverage,stateful', ...only('createAsyncTranscription', 'getTranscriptionStatus')],
    response: on('createAsyncTranscription', (q, r) =>
      r.status === 202 && /multipart/.test(q.headers['content-type'] ?? '') ? v3Invalid(r, 'file') : undefined,
    ),
  },
  {
    name: 'refuse a v2 create',
    category: 'validation',
    rules: ['v2.create.multipart', 'v2.create.fields'],
    args: [...STATEFUL, ...only('createV2Transcription', 'getV2Transcription', 'downloadV2TranscriptionResult')],
    response: on('createV2Transcription', (_q, r) => (r.status === 201 ? v2Invalid(r, 'file') : undefined)),
  },
  {
    name: 'refuse a v2 chat request',
    category: 'validation',
    rules: ['v2.chat.request-body'],
    args: [...EX, ...only('createV2ChatCompletion')],
    response: on('createV2ChatCompletion', (_q, r) => (r.status === 200 ? v2Invalid(r, 'messages') : undefined)),
  },
  // required things let go
  {
    name: 'accept a v2 request without X-Timestamp',
    category: 'auth',
    rules: ['api.required-headers'],
    args: [...STATEFUL, ...only('createV2Transcription', 'getV2Transcription', 'downloadV2TranscriptionResult')],
    response: accept((q, r) => r.status === 401 && /^\/v[12]\//.test(q.path) && !q.headers['x-timestamp']),
  },
  {
    name: 'accept a sync create without its file',
    category: 'validation',
    rules: ['stt.sync.multipart-file-only'],
    args: ['--phases', 'negative', ...only('createSyncTranscription')],
    response: accept(
      (q, r) =>
        r.status === 400 && q.operation?.id === 'createSyncTranscription' && /"param":"file"/.test(r.body.toString()),
    ),
  },
  // OpenAI-shaped answers
  {
    name: 'chat completion without choices',
    category: 'body',
    rules: ['chat.v3.plain-200'],
    args: [...EX, ...only('createChatCompletion')],
    response: on(
      'createChatCompletion',
      body(200, (v) => (delete v.choices, v)),
    ),
  },
  {
    name: 'OpenAI chat completion typed chat.completion.chunk',
    category: 'body',
    rules: ['chat.openai-drop-in'],
    args: [...EX, ...only('createOpenAiChatCompletion')],
    response: on(
      'createOpenAiChatCompletion',
      body(200, (v) => ({ ...v, object: 'chat.completion.chunk' })),
    ),
  },
  {
    name: 'embedding without its vector',
    category: 'body',
    rules: ['embeddings.openai-shape'],
    args: [...EX, ...only('createEmbedding')],
    response: on(
      'createEmbedding',
      body(200, (v) => {
        for (const item of (v.data ?? []) as Array<Record<string, unknown>>) delete item.embedding;
        return v;
      }),
    ),
  },
  {
    name: 'health without its status',
    category: 'body',
    rules: ['overview.helpers'],
    args: [...EX, ...only('getHealth')],
    response: on(
      'getHealth',
      body(200, (v) => (delete v.status, v)),
    ),
  },
  {
    name: 'v2 transcript chat without choices',
    category: 'body',
    rules: ['v2.transcript-chat.rule4.response-format'],
    args: [
      ...STATEFUL,
      ...only('createV2Transcription', 'getV2Transcription', 'createV2TranscriptChatCompletion', 'getBillingUsage'),
    ],
    response: on(
      'createV2TranscriptChatCompletion',
      body(200, (v) => (delete v.choices, v)),
    ),
  },
  // the stream's settings and messages
  {
    name: 'the session frame is ignored (always ru)',
    category: 'stream',
    rules: ['stt.stream.params-in-first-message', 'stream.first-message-session'],
    args: STREAMING,
    frame: frameOf('session.started', (m) => (configOf(m).language = 'ru')),
  },
  {
    name: 'session.started with encoding opus',
    category: 'stream',
    rules: ['stream.encoding-pcm'],
    args: STREAMING,
    frame: frameOf('session.started', (m) => (configOf(m).encoding = 'opus')),
  },
  {
    name: 'finalize flushes nothing',
    category: 'stream',
    rules: ['stream.client.finalize'],
    args: STREAMING,
    frame: frameOf('transcript.final', (m) => (m.type = 'transcript.partial')),
  },
  {
    name: 'a stream past its funds closed 4429',
    category: 'stream',
    rules: ['stream.close.4402'],
    args: STREAMING,
    frame: (data) => data.replace('"close_code":4402', '"close_code":4429'),
    closeCode: (code) => (code === 4402 ? 4429 : code),
  },
];
