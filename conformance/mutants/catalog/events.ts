// Mutants of the messages of the event streams beyond their order: a chunk of the SSE chat stream with another
// object or Content-Type, the usage chunk dropped, and the transcription stream's server messages renamed or
// stripped of a field. Each rewrites every event of its kind, so the phase that streams meets it.
import { type Mutant, type ProxyResponse } from '../proxy.ts';
import { frameOf } from './operators.ts';

const isSse = (r: ProxyResponse) => /text\/event-stream/.test(r.headers['content-type'] ?? '');

/** Rewrites each `data:` event of an SSE answer (the text after `data: `; undefined drops the event). */
const eachEvent =
  (edit: (data: string) => string | undefined) =>
  (_q: unknown, r: ProxyResponse): ProxyResponse | undefined => {
    if (!isSse(r)) return undefined;
    const events = r.body
      .toString()
      .split('\n\n')
      .flatMap((event) => {
        if (!event.startsWith('data: ')) return [event];
        const out = edit(event.slice('data: '.length));
        return out === undefined ? [] : [`data: ${out}`];
      });
    return { ...r, body: Buffer.from(events.join('\n\n')) };
  };

const SSE = ['--phases', 'sse'];
const STREAMING = ['--phases', 'streaming'];

export const EVENTS: Mutant[] = [
  {
    name: 'SSE chunks typed chat.completion',
    category: 'sse',
    rules: ['chat.chunk.shape'],
    args: SSE,
    response: eachEvent((data) => data.replace('"chat.completion.chunk"', '"chat.completion"')),
  },
  {
    name: 'SSE served as application/json',
    category: 'sse',
    rules: ['chat.v3.sse-content-type', 'overview.chat.plain-or-sse', 'chat.sse-as-endpoints'],
    args: SSE,
    response: (_q, r) =>
      isSse(r) ? { ...r, headers: { ...r.headers, 'content-type': 'application/json; charset=utf-8' } } : undefined,
  },
  {
    name: 'SSE events without the data: field',
    category: 'sse',
    rules: ['chat.v3.sse-data-events'],
    args: SSE,
    response: (_q, r) =>
      isSse(r) ? { ...r, body: Buffer.from(r.body.toString().replace(/^data: /gm, '')) } : undefined,
  },
  {
    name: 'SSE without the usage chunk asked for',
    category: 'sse',
    rules: ['chat.v3.include-usage'],
    args: SSE,
    response: eachEvent((data) => (/"choices":\[\],/.test(data) || /"choices":\[\]}/.test(data) ? undefined : data)),
  },
  // the transcription stream
  {
    name: 'stream partial renamed transcript.interim',
    category: 'stream',
    rules: ['stream.server.transcript-partial'],
    args: STREAMING,
    frame: frameOf('transcript.partial', (m) => (m.type = 'transcript.interim')),
  },
  {
    name: 'stream error frame without its code',
    category: 'stream',
    rules: ['stream.server.error', 'stream.close.error-frame-before'],
    args: STREAMING,
    frame: frameOf('error', (m) => {
      if (m.error && typeof m.error === 'object') delete (m.error as Record<string, unknown>).code;
      else delete m.code;
    }),
  },
];
