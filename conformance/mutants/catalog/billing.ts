// Mutants of money: reservations, captures, rounding, price order, and outcomes the document fixes beyond the schema.
import { randomUUID } from 'node:crypto';
import { json, type Mutant } from '../proxy.ts';
import { on, status, body, inData, withBalance, EX, STATEFUL, only } from './operators.ts';

export const BILLING: Mutant[] = [
  // billing: what the balance shows around reservations
  {
    name: 'a cancelled task keeps its reservation',
    rules: ['states.v3.cancel-releases-reservation'],
    category: 'billing',
    args: [
      ...STATEFUL,
      ...only('createAsyncTranscription', 'getTranscriptionStatus', 'cancelTranscription', 'calculatePrice'),
    ],
    response: (q, r, memory) => {
      const account = q.headers.authorization ?? '';
      if (q.operation?.id === 'cancelTranscription' && r.status === 200) memory.state.set(`held ${account}`, true);
      if (q.operation?.id !== 'calculatePrice' || !memory.state.has(`held ${account}`)) return undefined;
      return body(200, (v) => (withBalance(v, (b) => (b.available_credit = Number(b.available_credit) - 1.5)), v))(
        q,
        r,
        memory,
      );
    },
  },
  {
    name: 'a completed task is charged again on later reads',
    rules: ['billing.capture-exactly-once'],
    category: 'billing',
    args: [...STATEFUL, ...only('getTranscriptionStatus', 'createAsyncTranscription', 'calculatePrice')],
    // from the third completed read of an account's task on, its balance shows the cost taken a second time
    response: (q, r, memory) => {
      const account = q.headers.authorization ?? '';
      const value = json(r) as { data?: { status?: string; cost?: number } } | undefined;
      if (q.operation?.id === 'getTranscriptionStatus' && value?.data?.status === 'completed') {
        const seen = (memory.state.get(`completed ${account}`) as { reads: number } | undefined) ?? { reads: 0 };
        memory.state.set(`completed ${account}`, { reads: seen.reads + 1, cost: value.data.cost ?? 1 });
      }
      const completed = memory.state.get(`completed ${account}`) as { reads: number; cost: number } | undefined;
      if (q.operation?.id !== 'calculatePrice' || !completed || completed.reads < 3) return undefined;
      return body(200, (v) =>
        withBalance(v, (b) => {
          b.balance = Number(b.balance) - completed.cost;
          b.available_credit = Number(b.available_credit) - completed.cost;
        }),
      )(q, r, memory);
    },
  },
  {
    name: 'no reservation while a stream ticket is unused',
    rules: ['stt.stream.reserve-at-create'],
    category: 'billing',
    args: [...STATEFUL, ...only('createStreamSession', 'calculatePrice')],
    // the balance never shows a hold: available is always balance (+ the credit limit when the overdraft is on)
    response: on(
      'calculatePrice',
      body(200, (v) =>
        withBalance(v, (b) => {
          b.available_credit = Number(b.balance) + (b.overdraft_enabled ? Number(b.credit_limit) : 0);
        }),
      ),
    ),
  },
  {
    name: 'the ledger shows a second capture',
    rules: ['billing.capture-exactly-once'],
    category: 'billing',
    args: [...STATEFUL, ...only('createStreamSession', 'calculatePrice', 'listAccountLedger')],
    response: on(
      'listAccountLedger',
      body(200, (v) => {
        const entries = (v.data as Array<Record<string, unknown>> | undefined) ?? [];
        const doubled = entries.flatMap((e) => (e.kind === 'capture' ? [e, { ...e, id: randomUUID() }] : [e]));
        return { ...v, data: doubled };
      }),
    ),
  },
  {
    name: 'stream minutes rounded down',
    rules: ['stt.stream.charged-lightning-rounded-up'],
    category: 'billing',
    args: [...STATEFUL, ...only('createStreamSession', 'calculatePrice')],
    frame: (data) =>
      data.replace(
        /("type":"session\.completed".*"minutes_billed":)(\d+)/,
        (_m, head: string, n: string) => `${head}${Math.max(0, Number(n) - 1)}`,
      ),
  },
  // billing
  {
    name: 'charge floor instead of ceil',
    rules: ['billing.minutes-rounded-up', 'billing.capture-ceil-minutes'],
    category: 'billing',
    args: [
      ...STATEFUL,
      ...only(
        'getTranscriptionStatus',
        'createAsyncTranscription',
        'calculatePrice',
        'getAccount',
        'listAccountLedger',
      ),
    ],
    response: on(
      'getTranscriptionStatus',
      body(
        200,
        inData(
          (t) =>
            typeof t.cost === 'number' &&
            typeof t.minutes_billed === 'number' &&
            t.minutes_billed > 0 &&
            (t.cost = (t.cost / t.minutes_billed) * Math.floor(Number(t.duration_minutes ?? 0))),
        ),
      ),
    ),
  },
  // outcomes the document fixes beyond the schema
  {
    name: 'queue priced above lightning',
    rules: ['billing.queue-cheaper-than-lightning'],
    category: 'billing',
    args: [...STATEFUL, ...only('calculatePrice')],
    response: on('calculatePrice', (q, r) => {
      if (!/"priority":"queue"/.test(q.body.toString('utf8'))) return undefined;
      return body(200, (v) => ({ ...v, amount: Number(v.amount) * 10 }))(q, r, undefined as never);
    }),
  },
  {
    name: "a dead link's task fails with another code",
    rules: ['stt.async.download-failed', 'errors.code.download-failed'],
    category: 'state',
    args: STATEFUL,
    response: on(
      'getTranscriptionStatus',
      body(
        200,
        inData((t) => {
          const error = t.error as { code?: string } | null | undefined;
          if (error?.code === 'download_failed') error.code = 'task_failed';
        }),
      ),
    ),
  },
  {
    name: 'a webhook that answered 410 stays enabled',
    rules: ['webhooks.410-disables'],
    category: 'webhooks',
    args: [...STATEFUL, ...only('createWebhook', 'testWebhook', 'listWebhooks')],
    response: on(
      'listWebhooks',
      body(200, (v) => {
        for (const hook of (v.data as Record<string, unknown>[] | undefined) ?? []) {
          hook.enabled = true;
          hook.disabled_reason = null;
        }
        return v;
      }),
    ),
  },
  {
    name: 'a webhook update of a blocked account is 403',
    rules: ['webhooks.update-blocked-409'],
    category: 'auth',
    args: [...STATEFUL, ...only('createWebhook', 'updateWebhook', 'blockAccount', 'unblockAccount', 'listModels')],
    response: on('updateWebhook', status(409, 403)),
  },
  {
    name: 'an unknown chat model is 400',
    rules: ['chat.v3.model-not-found-404'],
    category: 'validation',
    args: [...STATEFUL, ...only('createChatCompletion', 'calculatePrice')],
    response: on('createChatCompletion', status(404, 400)),
  },
  {
    name: 'a json_object answer in prose',
    rules: ['chat.v3.json-modes-enforced'],
    category: 'sse',
    args: ['--phases', 'sse'],
    response: on(
      'createChatCompletion',
      body(200, (v) => {
        const choice = (v.choices as { message?: { content?: unknown } }[] | undefined)?.[0];
        if (choice?.message) choice.message.content = 'Here is a cat.';
        return v;
      }),
    ),
  },
  {
    name: 'a price with three decimals',
    rules: ['api.money-two-decimals'],
    category: 'billing',
    args: [...EX, ...only('calculatePrice')],
    response: on(
      'calculatePrice',
      body(200, (v) => ({ ...v, amount: Number(v.amount) + 0.001 })),
    ),
  },
  {
    name: 'a v2 task back to pending once completed',
    rules: ['states.v2.mapping-from-v3'],
    category: 'state',
    // the task never reads completed, so the suite polls until its task timeout: 30 s, the scenario's task takes a few
    args: [
      ...STATEFUL,
      ...only('createV2Transcription', 'getV2Transcription', 'downloadV2TranscriptionResult'),
      '--task-timeout',
      '30',
    ],
    response: on(
      'getV2Transcription',
      body(
        200,
        inData((t) => {
          if (t.status === 'completed') t.status = 'pending';
        }),
      ),
    ),
  },
];
