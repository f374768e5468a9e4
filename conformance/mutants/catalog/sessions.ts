// Mutants of the stream sessions, the language default and the webhooks: a stream served at another address, a
// recognition that waits for the end, client frames the server reads otherwise (keepalive, binary audio, the
// `session` frame's language), a final transcript renamed, an idle session closed with another code, tickets that
// outlive 60 s or are claimed twice, an upload without language transcribed as English, and webhook deliveries with
// another event type, a fat payload or the test event lost.
import { type Mutant, type ProxyRequest } from '../proxy.ts';
import { frameOf, on, only, STATEFUL } from './operators.ts';

const STREAMING = ['--phases', 'streaming'];
/** The `--slow` stream cases (the 62 s ticket, the idle session) run in the stateful phase. */
const SLOW_STREAMS = ['--slow', ...STATEFUL, ...only('createStreamSession')];
const WEBHOOKS = [
  ...STATEFUL,
  ...only('createWebhook', 'testWebhook', 'createAsyncTranscription', 'getTranscriptionStatus', 'calculatePrice'),
];
const NIL_UUID = '00000000-0000-0000-0000-000000000000';
const TRANSCRIPTS = new Set(['transcript.partial', 'transcript.final']);

const typeOf = (text: string): unknown => {
  try {
    return (JSON.parse(text) as { type?: unknown }).type;
  } catch {
    return undefined;
  }
};

/** Whether a delivery is the test event (its task id is the nil UUID). */
const testEvent = (body: string) => {
  try {
    return (JSON.parse(body) as { data?: { id?: unknown } }).data?.id === NIL_UUID;
  } catch {
    return false;
  }
};

/** Rewrites a client's JSON text frame of one type (the edit returns the frame to send); other frames pass. */
const clientFrameOf =
  (type: string, edit: (message: Record<string, unknown>) => Record<string, unknown>) =>
  (frame: { data: Buffer; binary: boolean }) => {
    if (frame.binary || typeOf(frame.data.toString('utf8')) !== type) return frame;
    const message = JSON.parse(frame.data.toString('utf8')) as Record<string, unknown>;
    return { data: Buffer.from(JSON.stringify(edit(message))), binary: false };
  };

/** A multipart form with one more text field, put before the closing boundary. */
function withField(request: ProxyRequest, name: string, value: string): Buffer | undefined {
  const boundary = /boundary=(?:"([^"]+)"|([^;]+))/.exec(request.headers['content-type'] ?? '');
  const marker = boundary ? `--${boundary[1] ?? boundary[2]}` : undefined;
  const form = request.body.toString('latin1');
  if (!marker || new RegExp(`name="${name}"`).test(form)) return undefined;
  const end = form.lastIndexOf(`${marker}--`);
  if (end < 0) return undefined;
  const field = `${marker}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
  return Buffer.from(form.slice(0, end) + field + form.slice(end), 'latin1');
}

export const SESSIONS: Mutant[] = [
  {
    // the WebSocket is served (and named in stream_url) at another path than the document's
    name: 'stream served at /v3/stream',
    category: 'stream',
    rules: ['doc.stream-url.placeholder'],
    args: STREAMING,
    response: on('createStreamSession', (_q, r) =>
      r.status === 201
        ? { ...r, body: Buffer.from(r.body.toString().replace('/v3/transcriptions/stream?', '/v3/stream?')) }
        : undefined,
    ),
    socketPath: (path) => path.replace(/^\/v3\/stream\?/, '/v3/transcriptions/stream?'),
  },
  {
    // not real time: every transcript is held back until the session completes
    name: 'stream transcripts held until the session ends',
    category: 'stream',
    rules: ['modes.stream.endpoint'],
    args: STREAMING,
    frame: (data, connection) => {
      const held = (connection.get('held') as string[] | undefined) ?? [];
      connection.set('held', held);
      const type = typeOf(data);
      if (typeof type === 'string' && TRANSCRIPTS.has(type)) {
        held.push(data);
        return [];
      }
      return type === 'session.completed' ? [...held.splice(0), data] : data;
    },
  },
  {
    // a server that does not know `keepalive` refuses it as an unknown message
    name: 'stream keepalive not understood',
    category: 'stream',
    rules: ['stream.client.keepalive'],
    args: STREAMING,
    clientFrame: clientFrameOf('keepalive', () => ({ type: 'ping' })),
  },
  {
    // a server that takes audio only as base64 in JSON text frames
    name: 'stream audio read only from text frames',
    category: 'stream',
    rules: ['stream.client.binary-audio'],
    args: STREAMING,
    clientFrame: (frame) =>
      frame.binary
        ? { data: Buffer.from(JSON.stringify({ type: 'audio', data: frame.data.toString('base64') })), binary: false }
        : frame,
  },
  {
    name: 'stream final renamed transcript.complete',
    category: 'stream',
    rules: ['stream.server.transcript-final'],
    args: STREAMING,
    frame: frameOf('transcript.final', (m) => (m.type = 'transcript.complete')),
  },
  {
    name: 'idle stream session closed 1000',
    category: 'stream',
    rules: ['stream.close.4408'],
    args: SLOW_STREAMS,
    closeCode: (code) => (code === 4408 ? 1000 : code),
  },
  {
    // the ticket lives 120 s: one opened after 62 s still gets a session
    name: 'stream ticket valid past 60 s',
    category: 'stream',
    rules: ['stream.session.expires-60s', 'stt.stream.ticket-ttl-60s'],
    args: SLOW_STREAMS,
    freshSession: ({ ageMs }) => ageMs > 60_000,
  },
  {
    // a claim that reads, then writes: two connections at once both get the session
    name: 'stream ticket claimed twice at once',
    category: 'stream',
    rules: ['stream.ticket-atomic-claim'],
    args: STREAMING,
    freshSession: ({ open }) => open > 0,
  },
  {
    name: 'stream session without language starts in en',
    category: 'defaults',
    rules: ['stream.session-language-default-ru'],
    args: STREAMING,
    clientFrame: clientFrameOf('session', (m) => ({ language: 'en', ...m })),
  },
  {
    name: 'upload without language transcribed as en',
    category: 'defaults',
    rules: ['params.language.default-ru'],
    args: [...STATEFUL, ...only('createSyncTranscription')],
    request: (q) => (q.operation?.id === 'createSyncTranscription' ? withField(q, 'language', 'en') : undefined),
  },
  // webhooks: what the server sends, signed as it sends it
  {
    name: 'webhook event typed transcription.succeeded',
    category: 'webhooks',
    rules: ['webhooks.events.two-types'],
    args: WEBHOOKS,
    webhookBody: (p) => (p.type === 'transcription.completed' ? { ...p, type: 'transcription.succeeded' } : p),
  },
  {
    // a fat payload: the task's fields and result in the event instead of only its id and status
    name: 'webhook payload carries the whole task',
    category: 'webhooks',
    rules: ['webhooks.payload-thin'],
    args: WEBHOOKS,
    webhookBody: (p) => ({
      ...p,
      data: { ...(p.data as Record<string, unknown>), mode: 'async', language: 'en', result: { text: 'hello' } },
    }),
  },
  {
    name: 'webhook test delivery never sent',
    category: 'webhooks',
    rules: ['webhooks.test-delivery'],
    args: WEBHOOKS,
    webhook: (headers, body) => (testEvent(body) ? undefined : headers),
  },
];
