// What the server accepts and refuses, and the error it answers, for request bodies whose schemas are unions told
// apart by a literal (`type` of price requests and of chat `response_format`) or by which field is given (v2 create:
// `file` or `source_url`). These schemas are written for client generators (single-value enums rather than `const`,
// union variants that are object types): the table pins the wire, so rewriting a schema for generators cannot change
// which bodies pass or what a refused body is told. The expected answers were those of the server before the
// rewrite.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Provisioned, Reply } from '../test-support/harness.ts';
import { useHarness } from '../test-support/harness.ts';

const test = suite('literal and union bodies (sqlite)');
const harness = useHarness(test, 'sqlite');

/** What a reply is compared by: status, and for a refusal the error's code or kind, param or fields, and message. */
function outcome(reply: Reply): unknown[] {
  if (reply.status < 400) return [reply.status];
  const error = reply.body?.error;
  if (typeof error === 'object' && error !== null) return [reply.status, error.code, error.param, error.message];
  return [reply.status, reply.body?.error, Object.keys(reply.body?.errors ?? {}), reply.body?.message];
}

type Call = (h: ReturnType<typeof harness>, account: Provisioned) => Promise<Reply>;

const price =
  (json: unknown): Call =>
  (h, account) =>
    h.v3(account.apiKey, 'POST', '/v3/billing/calculate', { json });

const chat =
  (responseFormat: unknown): Call =>
  (h, account) =>
    h.v3(account.apiKey, 'POST', '/v3/chat/completions/create', {
      json: {
        model: 'service-mini',
        messages: [{ role: 'user', content: 'Hello' }],
        response_format: responseFormat,
      },
    });

const v2Create =
  (fields: [string, string][], file?: string): Call =>
  (h, account) => {
    const form = new FormData();
    for (const [name, value] of fields) form.append(name, value);
    if (file !== undefined) form.append('file', new Blob([Buffer.alloc(64)]), file);
    return h.signed(account.signer, 'POST', '/v2/transcriptions', { form });
  };

const link = 'https://media.example.com/interview.mp3';

const calls: Record<string, Call> = {
  // Price requests: `type` selects the variant.
  'price: transcription': price({ type: 'transcription', duration_seconds: 90, priority: 'queue' }),
  'price: stream': price({ type: 'stream', duration_seconds: 90 }),
  'price: embedding': price({ type: 'embedding', tokens: 10 }),
  'price: chat with a bad field of its variant': price({
    type: 'chat',
    model: 'service-mini',
    prompt_tokens: -1,
    completion_tokens: 1,
  }),
  'price: an unknown type': price({ type: 'fax', pages: 2 }),
  'price: type of another case': price({ type: 'Chat', model: 'service-mini', prompt_tokens: 1, completion_tokens: 1 }),
  'price: type not a string': price({ type: 1, duration_seconds: 90 }),
  'price: a field of another variant': price({ type: 'stream', duration_seconds: 90, tokens: 1 }),
  // Chat `response_format` is validated before the model is needed (no chat model is configured here: 503).
  'chat: text': chat({ type: 'text' }),
  'chat: json_object': chat({ type: 'json_object' }),
  'chat: json_schema': chat({ type: 'json_schema', json_schema: { name: 'a', schema: { type: 'object' } } }),
  'chat: an unknown type': chat({ type: 'xml' }),
  'chat: json_schema without its schema': chat({ type: 'json_schema' }),
  'chat: text with a json_schema': chat({ type: 'text', json_schema: { name: 'a', schema: {} } }),
  'chat: json_schema with a bad name': chat({ type: 'json_schema', json_schema: { name: 'a b', schema: {} } }),
  'chat: json_schema whose schema is not an object': chat({
    type: 'json_schema',
    json_schema: { name: 'a', schema: 'x' },
  }),
  'chat: a string': chat('json_object'),
  // v2 create: exactly one of `file` and `source_url`.
  'v2: a link': v2Create([
    ['source_url', link],
    ['language', 'en'],
  ]),
  'v2: a file': v2Create([['language', 'en']], 'a.wav'),
  'v2: neither': v2Create([['language', 'en']]),
  'v2: both': v2Create([['source_url', link]], 'a.wav'),
  'v2: a link that is not http': v2Create([['source_url', 'ftp://media.example.com/a.mp3']]),
  'v2: a link given twice': v2Create([
    ['source_url', link],
    ['source_url', link],
  ]),
  'v2: an unknown field': v2Create([
    ['source_url', link],
    ['speakers', '2'],
  ]),
  'v2: a bad language with a file': v2Create([['language', 'english!']], 'a.wav'),
};

const engineUnavailable = () => [
  503,
  'engine_unavailable',
  'model',
  'No engine is configured for service-mini; set SCRIBE_MINI_MODEL to a GGUF path or openai:<base-url>#<model>.',
];
const httpUrlPattern = (
  JSON.parse(readFileSync(fileURLToPath(new URL('../../../generated/openapi.json', import.meta.url)), 'utf8')) as {
    components: { schemas: { HttpUrl: { pattern: string } } };
  }
).components.schemas.HttpUrl.pattern;

/** The answers of the server before the schemas were rewritten for generators. */
const before: Record<string, unknown[]> = {
  'price: transcription': [200],
  'price: stream': [200],
  'price: embedding': [200],
  'price: chat with a bad field of its variant': [
    400,
    'invalid_parameter',
    'prompt_tokens',
    'prompt_tokens must be >= 0.',
  ],
  'price: an unknown type': [400, 'invalid_parameter', 'type', 'type is not a known type.'],
  'price: type of another case': [400, 'invalid_parameter', 'type', 'type is not a known type.'],
  'price: type not a string': [400, 'invalid_parameter', 'type', 'type must be string.'],
  'price: a field of another variant': [400, 'invalid_parameter', 'tokens', 'tokens is not a known parameter.'],
  'chat: text': engineUnavailable(),
  'chat: json_object': engineUnavailable(),
  'chat: json_schema': engineUnavailable(),
  'chat: an unknown type': [
    400,
    'invalid_parameter',
    'response_format.type',
    'response_format.type must be one of text, json_object, json_schema.',
  ],
  'chat: json_schema without its schema': [
    400,
    'missing_parameter',
    'response_format.json_schema',
    'response_format.json_schema is required.',
  ],
  'chat: text with a json_schema': [
    400,
    'invalid_parameter',
    'response_format.json_schema',
    'response_format.json_schema is not a known parameter.',
  ],
  'chat: json_schema with a bad name': [
    400,
    'invalid_parameter',
    'response_format.json_schema.name',
    'response_format.json_schema.name must match pattern "^[a-zA-Z0-9_-]{1,64}$".',
  ],
  'chat: json_schema whose schema is not an object': [
    400,
    'invalid_parameter',
    'response_format.json_schema.schema',
    'response_format.json_schema.schema must be object.',
  ],
  'chat: a string': [400, 'invalid_parameter', 'response_format', 'response_format must be object.'],
  'v2: a link': [201],
  'v2: a file': [201],
  'v2: neither': [400, 'VALIDATION_ERROR', ['file'], 'Either file or source_url is required.'],
  'v2: both': [400, 'VALIDATION_ERROR', ['source_url'], 'Give either file or source_url, not both.'],
  'v2: a link that is not http': [
    400,
    'VALIDATION_ERROR',
    ['source_url'],
    `source_url must match pattern "${httpUrlPattern}".`,
  ],
  'v2: a link given twice': [400, 'VALIDATION_ERROR', ['source_url'], 'source_url is given more than once.'],
  'v2: an unknown field': [400, 'VALIDATION_ERROR', ['speakers'], 'speakers is not a known parameter.'],
  'v2: a bad language with a file': [
    400,
    'VALIDATION_ERROR',
    ['language'],
    'language must match pattern "^(auto|[a-z]{2,3}(-[A-Za-z0-9]{2,8})*)$".',
  ],
};

test('each body gets the answer it got before the schemas were rewritten for generators', async () => {
  const h = harness();
  const found: Record<string, unknown[]> = {};
  // An account per body, so the per-account rate limit never answers instead of the validation.
  for (const [name, call] of Object.entries(calls))
    found[name] = outcome(await call(h, await h.provision({ balance: 1000 })));
  if (process.env.PRINT_OUTCOMES) console.log(JSON.stringify(found));
  assert.equal(found, before);
});

test.run();
