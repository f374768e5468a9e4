// Mutants of the chat answers beyond their framing: a request that leaves `temperature`, `max_tokens` or `stream`
// out served as if another default applied (the request is rewritten on its way, so the real model answers it), an
// answer cut by `max_tokens` reported as stopped, a stream whose deltas do not add up to the answer or whose
// mid-stream failure never ends, and an engine that is down answered 500.
import { json, withJson, type Mutant, type ProxyRequest, type ProxyResponse } from '../proxy.ts';
import { on, only } from './operators.ts';

const SSE = ['--phases', 'sse'];
const isSse = (r: ProxyResponse) => /text\/event-stream/.test(r.headers['content-type'] ?? '');

/** A JSON chat request of `operationId` that left `field` out, sent with `value` instead. */
const defaulted =
  (operationId: string, absent: string[], field: string, value: unknown) =>
  (request: ProxyRequest): Buffer | undefined => {
    if (request.operation?.id !== operationId) return undefined;
    const body = json({ status: 0, headers: {}, body: request.body }) as Record<string, unknown> | undefined;
    if (!body || typeof body !== 'object' || absent.some((key) => key in body)) return undefined;
    return Buffer.from(JSON.stringify({ ...body, [field]: value }));
  };

type Chunk = { choices?: Array<{ delta?: { content?: string } }> };

/** Rewrites the `data:` payloads of an SSE answer as a whole (the list of payloads, `[DONE]` included). */
const payloads =
  (edit: (events: string[]) => string[]) =>
  (_q: ProxyRequest, r: ProxyResponse): ProxyResponse | undefined => {
    if (!isSse(r)) return undefined;
    const events = r.body
      .toString()
      .split('\n\n')
      .filter((e) => e.startsWith('data: '))
      .map((e) => e.slice('data: '.length));
    return {
      ...r,
      body: Buffer.from(
        edit(events)
          .map((e) => `data: ${e}\n\n`)
          .join(''),
      ),
    };
  };

/** Each content delta carries the whole text so far (a server that resends the answer instead of its new part). */
function cumulative(events: string[]): string[] {
  let sofar = '';
  return events.map((event) => {
    try {
      const chunk = JSON.parse(event) as Chunk;
      const delta = chunk.choices?.[0]?.delta;
      if (!delta || typeof delta.content !== 'string' || delta.content === '') return event;
      sofar += delta.content;
      delta.content = sofar;
      return JSON.stringify(chunk);
    } catch {
      return event;
    }
  });
}

/** The engine fails after the first content chunk: the error event is sent, and the stream ends without `[DONE]`. */
function failsWithoutDone(events: string[]): string[] {
  const at = events.findIndex((event) => /"content":"[^"]/.test(event));
  if (at < 0) return events;
  const error = { error: { type: 'server_error', code: 'internal_error', message: 'The model stopped.', param: null } };
  return [...events.slice(0, at + 1), JSON.stringify(error)];
}

const V3 = [...SSE, ...only('createChatCompletion')];

export const CHAT: Mutant[] = [
  {
    name: 'chat without temperature answered greedily',
    category: 'defaults',
    rules: ['chat.v3.temperature-default'],
    args: V3,
    request: defaulted('createChatCompletion', ['temperature'], 'temperature', 0),
  },
  {
    // the OpenAI legacy completions default
    name: 'chat without max_tokens capped at 16',
    category: 'defaults',
    rules: ['chat.v3.max-tokens-default'],
    args: V3,
    request: defaulted('createChatCompletion', ['max_tokens', 'max_completion_tokens'], 'max_tokens', 16),
  },
  {
    name: 'OpenAI chat without max_tokens capped at 16',
    category: 'defaults',
    rules: ['limits.chat.max-tokens-v3-default'],
    args: [...SSE, ...only('createChatCompletion', 'createOpenAiChatCompletion')],
    request: defaulted('createOpenAiChatCompletion', ['max_tokens', 'max_completion_tokens'], 'max_tokens', 16),
  },
  {
    name: 'chat without stream answered as a stream',
    category: 'defaults',
    rules: ['chat.v3.stream-default-false'],
    args: V3,
    request: defaulted('createChatCompletion', ['stream'], 'stream', true),
  },
  {
    name: 'chat cut by max_tokens reported stop',
    category: 'sse',
    rules: ['chat.v3.finish-length'],
    args: V3,
    response: on('createChatCompletion', (_q, r) => {
      const body = json(r) as { choices?: Array<{ finish_reason?: unknown }> } | undefined;
      if (r.status !== 200 || !body?.choices?.some((c) => c.finish_reason === 'length')) return undefined;
      for (const choice of body.choices) if (choice.finish_reason === 'length') choice.finish_reason = 'stop';
      return withJson(r, body);
    }),
  },
  {
    name: 'SSE deltas carry the text so far',
    category: 'sse',
    rules: ['chat.v3.sse-answer-is-concatenation'],
    args: V3,
    response: payloads(cumulative),
  },
  {
    name: 'SSE mid-stream failure without [DONE]',
    category: 'sse',
    rules: ['chat.v3.sse-midstream-error'],
    args: V3,
    response: payloads(failsWithoutDone),
  },
  {
    // the engine is down (the runner serves both models, so it never is: the mutant stands in for it)
    name: 'chat engine down answered 500',
    category: 'sse',
    rules: ['chat.v3.engine-unavailable-503'],
    args: ['--phases', 'examples', ...only('createChatCompletion')],
    response: on('createChatCompletion', (_q, r) =>
      r.status === 200
        ? withJson(
            { ...r, headers: { ...r.headers, 'content-type': 'application/json; charset=utf-8' } },
            { error: { type: 'server_error', code: 'internal_error', message: 'Internal server error.', param: null } },
            500,
          )
        : undefined,
    ),
  },
];
