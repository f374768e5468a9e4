// Mutants that accept invalid requests or refuse valid ones.
import { withJson, type Mutant } from '../proxy.ts';
import { on, accept, EX, STATEFUL, only } from './operators.ts';

export const VALIDATION: Mutant[] = [
  // validation
  {
    name: 'accept an out-of-range temperature',
    rules: ['limits.chat.temperature'],
    category: 'validation',
    args: ['--phases', 'coverage', ...only('createOpenAiAudioTranscription')],
    response: accept((q, r) => r.status === 400 && /temperature/.test(r.body.toString())),
  },
  {
    name: 'accept both url and file',
    rules: ['stt.async.url-and-file-400'],
    category: 'validation',
    args: ['--phases', 'negative', ...only('createAsyncTranscription')],
    response: accept((q, r) => r.status === 400 && /"param":"url"/.test(r.body.toString())),
  },
  {
    // the async create takes JSON first and a multipart form second: only a negative phase that mutates every
    // request media type sends the invalid forms this lets in
    name: 'accept an invalid multipart async create',
    rules: ['stt.async.output-json-string'],
    category: 'validation',
    args: ['--phases', 'negative', ...only('createAsyncTranscription')],
    response: on(
      'createAsyncTranscription',
      accept((q, r) => r.status === 400 && /^multipart\/form-data/i.test(q.headers['content-type'] ?? '')),
    ),
  },
  {
    name: 'accept broken JSON',
    rules: ['errors.code-status.validation-400'],
    category: 'validation',
    args: ['--phases', 'examples,negative', ...only('calculatePrice')],
    response: accept((_q, r, code) => code === 'invalid_json'),
  },
  {
    name: 'accept a wrong Content-Type',
    rules: ['errors.code-status.unsupported-media-type-415'],
    category: 'validation',
    args: ['--phases', 'examples,negative', ...only('createWebhook')],
    response: accept((_q, r) => r.status === 415),
  },
  {
    name: 'refuse valid data',
    rules: ['billing.calculate.request-types'],
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
    rules: ['auth.v3.key-limit-409'],
    category: 'validation',
    args: [...STATEFUL, ...only('createApiKey')],
    response: accept((_q, _r, code) => code === 'key_limit_exceeded'),
  },
  {
    name: 'an empty balance is not refused',
    rules: ['errors.code.insufficient-balance'],
    category: 'validation',
    args: [...STATEFUL, ...only('createAsyncTranscription', 'getTranscriptionStatus', 'calculatePrice')],
    response: accept((_q, r) => r.status === 402),
  },
  {
    name: 'rate limit not enforced',
    rules: ['limits.rate.10-rps'],
    category: 'validation',
    args: [...STATEFUL, ...only('listModels', 'getBillingUsage')],
    response: accept((_q, r) => r.status === 429),
  },
];
