// Mutants of what the schema cannot express: a value derived from the request (an echo, a rounding), from the
// moment of the answer (an expiry), or from the task's state (what a read may carry before it is final). Each keeps
// the answer schema-valid, so only a check that judges the relation can kill it.
import { json, withJson, type Mutant, type ProxyRequest } from '../proxy.ts';
import { on, body, inData, EX, STATEFUL, only } from './operators.ts';

const sentJson = (request: ProxyRequest): Record<string, unknown> | undefined => {
  try {
    return JSON.parse(request.body.toString('utf8')) as Record<string, unknown>;
  } catch {
    return undefined;
  }
};

const secondsOf = (duration: unknown) => {
  const match = typeof duration === 'string' ? /^(\d+):(\d{2})$/.exec(duration) : null;
  return match ? Number(match[1]) * 60 + Number(match[2]) : undefined;
};

export const DERIVED: Mutant[] = [
  {
    name: 'v2 quote minutes rounded to the nearest',
    category: 'billing',
    rules: ['v2.calculate.minutes-billed-rounded-up'],
    args: ['--phases', 'examples,stateful', ...only('calculateV2TranscriptionCost', 'calculatePrice')],
    // 01:10 → 1 minute and the cost of 1 (the cost per minute kept), 02:05 → 2, 45:00 unchanged
    response: on('calculateV2TranscriptionCost', (q, r) => {
      const seconds = secondsOf(sentJson(q)?.duration);
      const quote = json(r) as { minutesBilled?: number; cost?: number } | undefined;
      if (r.status !== 200 || seconds === undefined || !quote?.minutesBilled || typeof quote.cost !== 'number')
        return undefined;
      const nearest = Math.max(1, Math.round(seconds / 60));
      if (nearest === quote.minutesBilled) return undefined;
      const cost = Math.round((quote.cost / quote.minutesBilled) * nearest * 100) / 100;
      return withJson(r, { ...quote, minutesBilled: nearest, cost });
    }),
  },
  {
    name: 'sync create without the echoed output',
    category: 'body',
    rules: ['transcription.v3.output-echoed'],
    args: [...EX, ...only('createSyncTranscription')],
    response: on(
      'createSyncTranscription',
      body(
        200,
        inData((t) => delete t.output),
      ),
    ),
  },
  {
    // the stateful sync create sends no priority: the document's sync default is lightning
    name: 'sync create without a priority answered as queue',
    category: 'body',
    rules: ['stt.sync.default-priority-lightning', 'params.priority.sync-default-lightning'],
    args: [...STATEFUL, ...only('createSyncTranscription', 'getTranscriptionStatus')],
    response: on('createSyncTranscription', (q, r, memory) =>
      /name="priority"/.test(q.body.toString('latin1'))
        ? undefined
        : body(
            200,
            inData((t) => (t.priority = 'queue')),
          )(q, r, memory),
    ),
  },
  {
    name: 'stream session expires 300 s after creation',
    category: 'stream',
    rules: ['stream.session.expires-at-60s'],
    args: [...EX, ...only('createStreamSession')],
    response: on(
      'createStreamSession',
      body(201, (v) =>
        typeof v.expires_at === 'string'
          ? { ...v, expires_at: new Date(Date.parse(v.expires_at) + 240_000).toISOString() }
          : v,
      ),
    ),
  },
  {
    name: 'v2 read with result links while not completed',
    category: 'state machine',
    rules: ['transcription.v2.results-null-until-completed', 'v2.read.null-while-processing'],
    args: [...STATEFUL, ...only('createV2Transcription', 'getV2Transcription', 'downloadV2TranscriptionResult')],
    response: on(
      'getV2Transcription',
      body(
        200,
        inData((t) => {
          if (t.status === 'completed' || typeof t.id !== 'string') return;
          const link = (format: string) =>
            `http://127.0.0.1/v2/results/${String(t.id)}/${format}?expires=${Math.floor(Date.now() / 1000) + 3600}` +
            `&signature=${'0'.repeat(64)}`;
          t.results = { text: link('text'), json: link('json'), pdf: link('pdf') };
        }),
      ),
    ),
  },
];
