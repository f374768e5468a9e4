// Mutants of money beyond the quote and the capture: what a chat is charged and what it holds, a quote that costs
// something, reservations taken late or never and the available amount that ignores them, a ledger that hides a
// reservation or a capture, concurrent creates past the funds, a dropped stream charged, and rate limits counted
// per endpoint instead of per account or stream frames counted with the requests. Each runs the scenario that reads the money it moves.
import { randomUUID } from 'node:crypto';
import { json, withJson, type Memory, type Mutant, type ProxyRequest, type ProxyResponse } from '../proxy.ts';
import { on, body, accept, withBalance, STATEFUL, only, type Rewrite } from './operators.ts';

const SSE_BILLING = [
  '--phases',
  'sse',
  ...only('createChatCompletion', 'calculatePrice', 'getAccount', 'listAccountLedger'),
];
const TASKS = [...STATEFUL, ...only('createAsyncTranscription', 'getTranscriptionStatus', 'calculatePrice')];
const STREAM_LEDGER = [...STATEFUL, ...only('createStreamSession', 'calculatePrice', 'listAccountLedger')];
/** The burst scenario (account-states.ts rateLimit): one endpoint, three endpoints, then stream sessions. */
const BURSTS = [...STATEFUL, ...only('listModels', 'getBillingUsage', 'listApiKeys', 'createStreamSession')];

/** Who a request is from: its bearer key, or its v2 public key. */
const accountOf = (q: ProxyRequest) => q.headers.authorization ?? q.headers['x-public-key'] ?? '';

/** The available amount as if nothing were reserved: the balance, plus the credit limit when the overdraft is on. */
const unreserved = (b: Record<string, unknown>) =>
  Number(b.balance) + (b.overdraft_enabled ? Number(b.credit_limit) : 0);

const quoteWithoutHolds: Rewrite = body(200, (v) => withBalance(v, (b) => (b.available_credit = unreserved(b))));

type Entry = Record<string, unknown> & { kind?: string; amount?: number; reference?: string | null };

/** Rewrites the ledger's entries (`data`) of every listAccountLedger answer. */
const ledger = (edit: (entries: Entry[]) => Entry[]) =>
  on(
    'listAccountLedger',
    body(200, (v) => ({ ...v, data: edit((v.data as Entry[] | undefined) ?? []) })),
  );

const isChat = (e: Entry) => (e.reference ?? '').startsWith('chat');

/** A 429 answered as if let in while fewer than the limit of the account's requests in `bucket` came this second. */
const bucketed =
  (bucket: (q: ProxyRequest) => string | undefined) =>
  (q: ProxyRequest, r: ProxyResponse, memory: Memory): ProxyResponse | undefined => {
    const name = bucket(q);
    if (name === undefined) return undefined;
    const key = `${accountOf(q)} ${name} ${Math.floor(Date.now() / 1000)}`;
    const count = ((memory.state.get(key) as number | undefined) ?? 0) + 1;
    memory.state.set(key, count);
    const limit = Number(r.headers['ratelimit-limit'] ?? 10) || 10;
    return count <= limit ? accept((_q, answer) => answer.status === 429)(q, r, memory) : undefined;
  };

/** The times (ms) of the `name` events within the last second, this one included. */
const lastSecond = (memory: Memory, name: string, now: number) => {
  const times = ((memory.state.get(name) as number[] | undefined) ?? []).filter((t) => now - t < 1000);
  times.push(now);
  memory.state.set(name, times);
  return times.length;
};

/** The v3 rate-limit refusal, as the server words it. */
const tooMany = (r: ProxyResponse, limit: number): ProxyResponse => ({
  ...withJson(
    r,
    {
      error: {
        type: 'rate_limit_error',
        code: 'rate_limit_exceeded',
        message: `Rate limit of ${limit} requests per second exceeded.`,
        param: null,
      },
    },
    429,
  ),
  headers: { ...r.headers, 'content-type': 'application/json; charset=utf-8', 'retry-after': '1' },
});

export const MONEY: Mutant[] = [
  // chat: charged by tokens, reserved at the start and released once captured
  {
    name: 'a chat charged a flat fee whatever its tokens',
    category: 'billing',
    rules: ['overview.chat.billed-by-tokens'],
    args: SSE_BILLING,
    response: ledger((entries) =>
      entries.map((e) => (e.kind === 'capture' && isChat(e) ? { ...e, amount: -0.25 } : e)),
    ),
  },
  {
    name: "a chat's reservation is never released after its capture",
    category: 'billing',
    rules: ['billing.chat-reserve-capture-tokens'],
    args: SSE_BILLING,
    response: ledger((entries) => entries.filter((e) => !(e.kind === 'release' && isChat(e)))),
  },
  {
    name: 'a price quote is charged',
    category: 'billing',
    rules: ['billing.calculate-no-charge'],
    args: SSE_BILLING,
    // every quote takes 0.01: the account's balance shows what the quotes so far took
    response: (q, r, memory) => {
      const quotes = (memory.state.get('quotes') as number | undefined) ?? 0;
      if (q.operation?.id === 'calculatePrice' && r.status === 200) memory.state.set('quotes', quotes + 1);
      if (q.operation?.id !== 'getAccount' || quotes === 0) return undefined;
      return body(200, (v) => ({
        ...v,
        balance: Math.round((Number(v.balance) - quotes * 0.01) * 100) / 100,
        available: Math.round((Number(v.available) - quotes * 0.01) * 100) / 100,
      }))(q, r, memory);
    },
  },
  // reservations of tasks and what the available amount makes of them
  {
    name: 'a task reserves nothing while it is ready or processing',
    category: 'billing',
    rules: ['billing.reserve-at-task-start'],
    args: TASKS,
    // the account's balance shows a hold only once its task ended, i.e. none while it runs
    response: (q, r, memory) => {
      const account = accountOf(q);
      const status = (json(r) as { data?: { status?: string } } | undefined)?.data?.status;
      if (q.operation?.id === 'createAsyncTranscription' && r.status === 202) memory.state.set(`runs ${account}`, true);
      if (q.operation?.id === 'getTranscriptionStatus' && status)
        memory.state.set(`runs ${account}`, status === 'ready' || status === 'processing');
      return q.operation?.id === 'calculatePrice' && memory.state.get(`runs ${account}`)
        ? quoteWithoutHolds(q, r, memory)
        : undefined;
    },
  },
  {
    name: 'a task from a link is not reserved once downloaded',
    category: 'billing',
    rules: ['billing.reserve-after-download'],
    args: [
      ...STATEFUL,
      ...only('createAsyncTranscription', 'getTranscriptionStatus', 'cancelTranscription', 'calculatePrice'),
    ],
    // the accounts that created a task from a link see no hold at all
    response: (q, r, memory) => {
      const account = accountOf(q);
      if (q.operation?.id === 'createAsyncTranscription' && /"url"/.test(q.body.toString('utf8')))
        memory.state.set(`link ${account}`, true);
      return q.operation?.id === 'calculatePrice' && memory.state.get(`link ${account}`)
        ? quoteWithoutHolds(q, r, memory)
        : undefined;
    },
  },
  {
    name: 'the available amount leaves out active reservations',
    category: 'billing',
    rules: ['billing.available-funds'],
    args: TASKS,
    response: (q, r, memory) => {
      if (q.operation?.id === 'calculatePrice') return quoteWithoutHolds(q, r, memory);
      if (q.operation?.id === 'getAccount') return body(200, (v) => ({ ...v, available: unreserved(v) }))(q, r, memory);
      return undefined;
    },
  },
  {
    name: 'the ledger leaves out its reserve entries',
    category: 'billing',
    rules: ['billing.ledger-entries'],
    args: STREAM_LEDGER,
    response: ledger((entries) => entries.filter((e) => e.kind !== 'reserve')),
  },
  {
    name: 'concurrent creates past the funds let in',
    category: 'billing',
    rules: ['billing.no-overspend'],
    args: [...STATEFUL, ...only('calculatePrice', 'createSyncTranscription')],
    // the funds checked, then reserved in a second statement: creates that arrive together all pass the check
    response: accept((q, r) => r.status === 402 && q.operation?.id === 'createSyncTranscription'),
  },
  // stream sessions: captured on a clean end, only released on a drop
  {
    name: 'a dropped stream session is charged',
    category: 'billing',
    rules: ['stt.stream.drop-not-charged'],
    args: STREAM_LEDGER,
    // a session that was released without a capture shows one in the ledger all the same
    response: ledger((entries) =>
      entries.flatMap((e) =>
        e.kind === 'release' && !entries.some((other) => other.kind === 'capture' && other.reference === e.reference)
          ? [e, { ...e, id: randomUUID(), kind: 'capture', amount: -0.01, description: 'stream audio received' }]
          : [e],
      ),
    ),
  },
  {
    name: 'a clean stream session is released without a capture',
    category: 'billing',
    rules: ['stream.capture-on-clean-end'],
    args: STREAM_LEDGER,
    response: ledger((entries) => entries.filter((e) => e.kind !== 'capture')),
  },
  // rate limits: per account, stream session creation included
  {
    name: 'the rate limit counted per endpoint, not per account',
    category: 'validation',
    rules: ['limits.rate.scope-account'],
    args: BURSTS,
    response: bucketed((q) => q.operation?.id),
  },
  {
    name: 'stream session creation counted apart from the other requests',
    category: 'validation',
    rules: ['stt.stream.create-counts-toward-rate-limit'],
    args: BURSTS,
    response: bucketed((q) => (q.operation?.id === 'createStreamSession' ? 'sessions' : undefined)),
  },
  {
    name: 'WebSocket frames counted toward the rate limit',
    category: 'validation',
    rules: ['stt.stream.create-counts-toward-rate-limit'],
    args: BURSTS,
    // the stream's frames and the HTTP requests of the last second share one count
    clientFrame: (frame, memory) => {
      lastSecond(memory, 'frames', Date.now());
      return frame;
    },
    response: (q, r, memory) => {
      const now = Date.now();
      const frames = ((memory.state.get('frames') as number[] | undefined) ?? []).filter((t) => now - t < 1000);
      const requests = lastSecond(memory, `requests ${accountOf(q)}`, now);
      const limit = Number(r.headers['ratelimit-limit'] ?? 10) || 10;
      return frames.length > 0 && r.status < 300 && frames.length + requests > limit ? tooMany(r, limit) : undefined;
    },
  },
];
