// What each generator's scenario call does today, asserted by generators.test.ts: `works` as generated, works only
// with the generator's one documented `option`, or `fails` (with it too). A change either way fails the test, which
// then names the call that flipped: a regression, or an improvement to record here and in
// docs/guides/client-generators.md.
export type Status = 'works' | 'option' | 'fails' | 'absent';

export const CALLS = [
  'models',
  'price',
  'sync-upload',
  'poll',
  'result-json',
  'result-srt',
  'result-vtt',
  'result-text',
  'async-link',
  'async-upload',
  'not-found',
  'chat',
  'chat-stream',
  'chat-stream-operation',
  'v2-signed',
] as const;
export type Call = (typeof CALLS)[number];

/**
 * Calls of operations the contract may not have (an operation for one media type of a call above): tried only when
 * the bundled contract has the operation, `absent` otherwise (which the test accepts: EXPECTED holds the status when
 * the operation is there). Their attempts are in `scenarios/<generator>.<call>.mts`.
 */
export const OPERATION_CALLS: Partial<Record<Call, string>> = {
  'chat-stream-operation': 'createStreamedChatCompletion',
};

/** Strict compile errors inside the generated code itself (not the scenario's), per generator. */
export const GENERATED_ERRORS: Record<string, number> = {
  'openapi-fetch': 0,
  // Both orval clients append every field of the v2 create form, so the oneOf of a file or a link does not compile.
  'orval-fetch': 2,
  'orval-axios': 2,
  kubb: 0,
  'hey-api': 0,
};

export const EXPECTED: Record<string, Record<Call, Status>> = {
  'openapi-fetch': {
    models: 'works',
    price: 'works',
    'sync-upload': 'fails',
    poll: 'works',
    'result-json': 'fails',
    'result-srt': 'option',
    'result-vtt': 'option',
    'result-text': 'option',
    'async-link': 'works',
    'async-upload': 'fails',
    'not-found': 'works',
    chat: 'fails',
    'chat-stream': 'option',
    'chat-stream-operation': 'option',
    'v2-signed': 'works',
  },
  'orval-fetch': {
    models: 'works',
    price: 'works',
    'sync-upload': 'works',
    poll: 'works',
    'result-json': 'fails',
    'result-srt': 'fails',
    'result-vtt': 'fails',
    'result-text': 'fails',
    'async-link': 'option',
    'async-upload': 'fails',
    'not-found': 'works',
    chat: 'fails',
    'chat-stream': 'fails',
    'chat-stream-operation': 'fails',
    'v2-signed': 'works',
  },
  'orval-axios': {
    models: 'works',
    price: 'works',
    'sync-upload': 'works',
    poll: 'works',
    'result-json': 'fails',
    'result-srt': 'works',
    'result-vtt': 'works',
    'result-text': 'works',
    'async-link': 'works',
    'async-upload': 'fails',
    'not-found': 'fails',
    chat: 'fails',
    'chat-stream': 'fails',
    'chat-stream-operation': 'fails',
    'v2-signed': 'works',
  },
  kubb: {
    models: 'works',
    price: 'works',
    'sync-upload': 'works',
    poll: 'works',
    'result-json': 'works',
    'result-srt': 'fails',
    'result-vtt': 'fails',
    'result-text': 'fails',
    'async-link': 'works',
    'async-upload': 'fails',
    'not-found': 'fails',
    chat: 'works',
    'chat-stream': 'fails',
    'chat-stream-operation': 'fails',
    'v2-signed': 'works',
  },
  'hey-api': {
    models: 'works',
    price: 'works',
    'sync-upload': 'works',
    poll: 'works',
    'result-json': 'works',
    'result-srt': 'fails',
    'result-vtt': 'fails',
    'result-text': 'fails',
    'async-link': 'works',
    'async-upload': 'fails',
    'not-found': 'works',
    chat: 'works',
    'chat-stream': 'option',
    'chat-stream-operation': 'works',
    'v2-signed': 'works',
  },
};
