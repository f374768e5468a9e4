// Mutants of response headers and content types.
import { type Mutant } from '../proxy.ts';
import { on, header, EX, STATEFUL, only } from './operators.ts';

export const HEADERS: Mutant[] = [
  // headers and content types
  {
    name: 'X-Request-Id missing',
    rules: ['api.request-id'],
    category: 'headers',
    args: [...EX, ...only('listModels')],
    response: header((h) => (delete h['x-request-id'], h)),
  },
  {
    name: 'RateLimit-Limit not a number',
    rules: ['limits.rate.headers'],
    category: 'headers',
    args: [...EX, ...only('listModels')],
    response: header((h) => (h['ratelimit-limit'] ? ((h['ratelimit-limit'] = 'ten'), h) : undefined)),
  },
  {
    name: 'JSON served as text/plain',
    rules: ['api.content-types'],
    category: 'headers',
    args: [...EX, ...only('listWebhooks')],
    response: on(
      'listWebhooks',
      header((h) => ((h['content-type'] = 'text/plain'), h)),
    ),
  },
  {
    name: 'SRT without charset',
    rules: ['result.v3.subtitles'],
    category: 'headers',
    args: [
      ...STATEFUL,
      ...only('getTranscriptionResult', 'getTranscriptionStatus', 'createAsyncTranscription', 'calculatePrice'),
    ],
    response: on(
      'getTranscriptionResult',
      header((h) =>
        /^text\//.test(h['content-type'] ?? '')
          ? ((h['content-type'] = h['content-type']!.split(';')[0]!), h)
          : undefined,
      ),
    ),
  },
];
