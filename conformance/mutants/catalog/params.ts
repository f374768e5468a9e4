// Mutants that let in one request parameter the document bounds: a refusal whose `param` (v3) or `errors` key (v2)
// names that parameter is answered as if it had been accepted, so only a case that sends that parameter out of its
// bounds can tell the server apart.
import { json, type Mutant, type ProxyRequest, type ProxyResponse } from '../proxy.ts';
import { accept, only } from './operators.ts';

/** The parameter a refusal blames: the v3 error's `param`, or the v2 body's `errors` keys. */
function blamed(r: ProxyResponse): string[] {
  const value = json(r) as { error?: unknown; errors?: Record<string, unknown> } | undefined;
  if (value?.error && typeof value.error === 'object') {
    const param = (value.error as { param?: unknown }).param;
    return typeof param === 'string' ? [param] : [];
  }
  return value?.errors ? Object.keys(value.errors) : [];
}

const NEGATIVE = ['--phases', 'negative,coverage'];

/** Accepts a 400 on these operations that blames a parameter matching `param`. */
const letIn = (name: string, rules: string[], operations: string[], param: RegExp, args?: string[]): Mutant => ({
  name,
  category: 'validation',
  rules,
  args: args ?? [...NEGATIVE, ...only(...operations)],
  response: accept(
    (q: ProxyRequest, r) =>
      r.status === 400 && operations.includes(q.operation?.id ?? '') && blamed(r).some((p) => param.test(p)),
  ),
});

export const PARAMS: Mutant[] = [
  letIn('accept a non-http url', ['params.url.http-https'], ['createAsyncTranscription'], /^url$/),
  letIn(
    'accept an output other than json',
    ['params.output.format-json-only'],
    ['createAsyncTranscription'],
    /^output/,
  ),
  letIn(
    'accept an unknown priority',
    ['params.priority.enum', 'billing.priorities'],
    ['createAsyncTranscription'],
    /^priority$/,
  ),
  letIn('accept a chat request without a model', ['chat.v3.model-required'], ['createChatCompletion'], /^model$/),
  letIn(
    'accept a chat request without messages',
    ['chat.v3.messages-required-min-one'],
    ['createChatCompletion'],
    /^messages$/,
  ),
  letIn('accept a chat temperature above 2', ['chat.v3.temperature-range'], ['createChatCompletion'], /^temperature$/),
  letIn(
    'accept a chat max_tokens above 32000',
    ['chat.v3.max-tokens-range', 'limits.chat.max-tokens'],
    ['createChatCompletion'],
    /^max_tokens$/,
  ),
  letIn('accept an unknown response_format', ['chat.v3.response-format'], ['createChatCompletion'], /^response_format/),
  letIn('accept an embedding of another model', ['embeddings.model-id'], ['createEmbedding'], /^model$/),
  letIn('accept a usage period of a decade', ['usage.period-values'], ['getBillingUsage'], /^period$/),
  letIn('accept a usage date range out of form', ['usage.date-range'], ['getBillingUsage'], /^date_(from|to)$/),
  letIn('accept a task id that is not a UUID', ['stt.status.id-uuid'], ['getTranscriptionStatus'], /^id$/),
  letIn(
    'accept a v2 quote without priority',
    ['v2.calculate.request'],
    ['calculateV2TranscriptionCost'],
    /^(priority|duration)$/,
  ),
  letIn(
    'accept a v2 transcript chat temperature above 2',
    ['v2.transcript-chat.temperature-range'],
    ['createV2TranscriptChatCompletion'],
    /^temperature$/,
  ),
  letIn(
    'accept v2 transcript chat messages that are not strings',
    ['v2.transcript-chat.messages'],
    ['createV2TranscriptChatCompletion'],
    /^messages/,
  ),
  letIn(
    'accept a v2 transcript chat maxTokens above 32000',
    ['v2.transcript-chat.max-tokens-aliases'],
    ['createV2TranscriptChatCompletion'],
    /^(maxTokens|max_tokens)$/,
  ),
  letIn(
    'accept a v2 create with neither file nor source_url',
    ['v2.create.file-or-source-url'],
    ['createV2Transcription'],
    /^(file|source_url)$/,
  ),
  letIn(
    'accept a list limit over 100',
    ['api.list-pagination'],
    ['listApiKeys', 'listWebhooks', 'listTranscriptions'],
    /^limit$/,
  ),
];
