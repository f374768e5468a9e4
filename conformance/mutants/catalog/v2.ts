// Mutants of the v2 surface and its transcript chat: the free service-mini requests counted one too few or too
// many, an analysis at creation not counted or not run, a chat over a transcript that is not ready, a blocked
// account's chat answered as missing, validation errors in another shape, a valid create refused, the default model
// another one, a quote that forgets its file metadata or leaves a record, an issued key pair that opens nothing, and
// authentication that no longer tells the versions apart (v3's bearer key on v2, a signature refused on replay).
import { randomUUID } from 'node:crypto';
import { json, withJson, type Memory, type Mutant, type ProxyRequest, type ProxyResponse } from '../proxy.ts';
import { on, body, accept, EX, STATEFUL, only } from './operators.ts';

/** The free-quota scenario (v2-chat.ts): it lists the chat models, reads the balance and takes it to 0. */
const V2_CHAT = [
  ...STATEFUL,
  ...only(
    'createV2Transcription',
    'getV2Transcription',
    'createV2TranscriptChatCompletion',
    'listModels',
    'getAccount',
    'topUpAccount',
  ),
];
const V2_READ = [...STATEFUL, ...only('createV2Transcription', 'getV2Transcription', 'getBillingUsage')];
const NEGATIVE = ['--phases', 'negative'];

const v2Error = (
  r: ProxyResponse,
  error: string,
  status: number,
  message: string,
  errors: Record<string, string[]> = {},
) => withJson(r, { error, message, errors }, status);

const formHas = (q: ProxyRequest, field: string) => new RegExp(`name="${field}"`).test(q.body.toString('latin1'));

/**
 * The transcript chat's answers, with how many of the same transcription's requests were answered 200 before
 * this one (the free requests taken so far, on the scenario's empty account).
 */
const chatCounted =
  (rewrite: (answered: number, q: ProxyRequest, r: ProxyResponse, memory: Memory) => ProxyResponse | undefined) =>
  (q: ProxyRequest, r: ProxyResponse, memory: Memory) => {
    if (q.operation?.id !== 'createV2TranscriptChatCompletion') return undefined;
    const key = `answered ${q.path}`;
    const answered = (memory.state.get(key) as number | undefined) ?? 0;
    const sent = rewrite(answered, q, r, memory) ?? r;
    if (sent.status === 200) memory.state.set(key, answered + 1);
    return sent === r ? undefined : sent;
  };

const insufficient = (r: ProxyResponse) =>
  v2Error(r, 'INSUFFICIENT_FUNDS', 402, 'Not enough funds for a paid request.');

/** A v2 validation error in the v3 error shape (a shared error handler that forgot the version). */
const v3Shaped = (operationId: string) =>
  on(operationId, (_q, r) => {
    const value = json(r) as { error?: unknown; message?: unknown; errors?: Record<string, unknown> } | undefined;
    if (r.status !== 400 || value?.error !== 'VALIDATION_ERROR') return undefined;
    const param = Object.keys(value.errors ?? {})[0] ?? null;
    return withJson(r, {
      error: { type: 'invalid_request_error', code: 'invalid_parameter', message: value.message, param },
    });
  });

export const V2: Mutant[] = [
  // the five free service-mini requests per transcription, the analysis at creation one of them
  {
    name: 'only four free service-mini requests per transcription',
    category: 'billing',
    rules: ['limits.v2-chat.free-mini', 'v2.transcript-chat.rule3.five-free-mini'],
    args: V2_CHAT,
    response: chatCounted((answered, _q, r) => (r.status === 200 && answered === 4 ? insufficient(r) : undefined)),
  },
  {
    name: 'a sixth service-mini request free',
    category: 'billing',
    rules: ['limits.v2-chat.free-mini', 'v2.transcript-chat.rule3.five-free-mini'],
    args: V2_CHAT,
    response: chatCounted((answered, q, r, memory) =>
      r.status === 402 && answered === 5 ? accept(() => true)(q, r, memory) : undefined,
    ),
  },
  {
    name: 'the analysis of the prompt at creation not counted as a free request',
    category: 'billing',
    rules: ['v2.transcript-chat.rule3.ai-prompt-counts'],
    args: V2_CHAT,
    response: chatCounted((answered, q, r, memory) =>
      r.status === 402 && answered === 4 ? accept(() => true)(q, r, memory) : undefined,
    ),
  },
  {
    name: 'the prompt at creation taken as a recognition hint, not analysed',
    category: 'body',
    rules: ['v2.create.prompt-is-ai-prompt'],
    args: V2_CHAT,
    response: on(
      'getV2Transcription',
      body(200, (v) => {
        if (v.data && typeof v.data === 'object') (v.data as Record<string, unknown>).ai_analysis = null;
        return v;
      }),
    ),
  },
  {
    name: 'a chat over a transcript that is not ready answered',
    category: 'state',
    rules: ['v2.transcript-chat.rule1.completed-only'],
    args: [...STATEFUL, ...only('createV2Transcription', 'createV2TranscriptChatCompletion')],
    response: accept((q, _r, code) => q.operation?.id === 'createV2TranscriptChatCompletion' && code === 'NOT_READY'),
  },
  {
    name: "a blocked account's transcript chat answered 404",
    category: 'auth',
    rules: ['v2.transcript-chat.rule5.no-access-403'],
    args: [...STATEFUL, ...only('blockAccount', 'unblockAccount', 'listModels', 'createV2TranscriptChatCompletion')],
    response: on('createV2TranscriptChatCompletion', (_q, r) =>
      r.status === 403 ? v2Error(r, 'NOT_FOUND', 404, 'No such transcription.') : undefined,
    ),
  },
  {
    name: 'the model left out of a transcript chat defaults to service-pro',
    category: 'defaults',
    rules: ['v2.transcript-chat.model-default-mini'],
    args: [...STATEFUL, ...only('createV2Transcription', 'getV2Transcription', 'createV2TranscriptChatCompletion')],
    response: on('createV2TranscriptChatCompletion', (q, r, memory) =>
      /"model"/.test(q.body.toString('utf8'))
        ? undefined
        : body(200, (v) => ({ ...v, model: 'service-pro' }))(q, r, memory),
    ),
  },
  // validation errors of the v2 chat endpoints keep the v2 body
  {
    name: "the transcript chat's validation errors in the v3 shape",
    category: 'body',
    rules: ['v2.transcript-chat.rule5.validation-body'],
    args: [...NEGATIVE, ...only('createV2TranscriptChatCompletion')],
    response: v3Shaped('createV2TranscriptChatCompletion'),
  },
  {
    name: "the v2 chat's validation errors in the v3 shape",
    category: 'body',
    rules: ['v2.chat.validation-body'],
    args: [...NEGATIVE, ...only('createV2ChatCompletion')],
    response: v3Shaped('createV2ChatCompletion'),
  },
  // the v2 create's form
  {
    name: 'a v2 create in multipart/form-data answered 415',
    category: 'validation',
    rules: ['v2.create.multipart'],
    args: [...EX, ...only('createV2Transcription')],
    response: on('createV2Transcription', (q, r) =>
      r.status === 201 && /multipart\/form-data/.test(q.headers['content-type'] ?? '')
        ? v2Error(r, 'UNSUPPORTED_MEDIA_TYPE', 415, 'Send the form as application/json.')
        : undefined,
    ),
  },
  {
    name: 'a v2 create with comma-separated terms refused',
    category: 'validation',
    rules: ['v2.create.fields'],
    args: ['--phases', 'examples,coverage', ...only('createV2Transcription')],
    response: on('createV2Transcription', (q, r) =>
      r.status === 201 && formHas(q, 'terms')
        ? v2Error(r, 'VALIDATION_ERROR', 400, 'The given data was invalid.', { terms: ['One term only.'] })
        : undefined,
    ),
  },
  // the v2 quote
  {
    name: 'a v2 quote without the file size it was sent',
    category: 'body',
    rules: ['v2.calculate.file-metadata'],
    args: [...EX, ...only('calculateV2TranscriptionCost')],
    response: on(
      'calculateV2TranscriptionCost',
      body(200, (v) => (delete v.fileSize, v)),
    ),
  },
  {
    name: 'a v2 quote recorded in the ledger',
    category: 'billing',
    rules: ['v2.calculate.no-record'],
    args: [
      ...STATEFUL,
      ...only('calculateV2TranscriptionCost', 'getAccount', 'listAccountLedger', 'listTranscriptions'),
    ],
    // once an account has been quoted, its ledger lists the quote as an entry
    response: (q, r, memory) => {
      if (q.operation?.id === 'calculateV2TranscriptionCost' && r.status === 200) memory.state.set('quoted', true);
      if (q.operation?.id !== 'listAccountLedger' || !memory.state.get('quoted')) return undefined;
      return body(200, (v) => {
        const entries = (v.data as Array<Record<string, unknown>> | undefined) ?? [];
        const quote = {
          id: (memory.state.get('quote entry') as string | undefined) ?? randomUUID(),
          kind: 'adjust',
          amount: 0,
          balance_after: entries[0]?.balance_after ?? 0,
          reference: 'v2-calculate',
          description: 'v2 cost calculation',
          created_at: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
        };
        memory.state.set('quote entry', quote.id);
        return { ...v, data: [quote, ...entries] };
      })(q, r, memory);
    },
  },
  // keys and authentication
  {
    name: 'a newly issued key pair is not let in',
    category: 'auth',
    rules: ['auth.v2.key-issuing'],
    args: [...STATEFUL, ...only('issueAccountKeyPair', 'getBillingUsage')],
    response: (q, r, memory) => {
      const pair = json(r) as { public_key?: string } | undefined;
      if (q.operation?.id === 'issueAccountKeyPair' && r.status === 201 && pair?.public_key)
        memory.state.set(`issued ${pair.public_key}`, true);
      const key = q.headers['x-public-key'];
      return key && memory.state.get(`issued ${key}`) && r.status < 300
        ? v2Error(r, 'UNAUTHORIZED', 401, 'Unknown public key.')
        : undefined;
    },
  },
  {
    name: "v2 lets in the account's v3 bearer key",
    category: 'auth',
    rules: ['versioning.side-by-side'],
    args: V2_READ,
    response: accept(
      (q, r) => r.status === 401 && /^\/v2\//.test(q.path) && /^Bearer /.test(q.headers.authorization ?? ''),
    ),
  },
  {
    name: 'a signature refused when replayed on another path',
    category: 'auth',
    rules: ['auth.v2.replay-window-documented'],
    args: V2_READ,
    // the server keeps each signature with the path it first opened, and refuses it anywhere else
    response: (q, r, memory) => {
      const signature = q.headers['x-signature'];
      if (!signature || r.status >= 300) return undefined;
      const path = q.path.split('?')[0]!;
      const first = memory.state.get(`signature ${signature}`) as string | undefined;
      if (first === undefined) memory.state.set(`signature ${signature}`, path);
      return first !== undefined && first !== path
        ? v2Error(r, 'UNAUTHORIZED', 401, 'Signature already used.')
        : undefined;
    },
  },
];
