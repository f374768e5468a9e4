// The start of a chat call, measured at the service (the real llama engine, on its worker thread as the server runs it,
// on the tiny GGUF, the real ledger on SQLite): a local model starts on the prompt while the funds are being held, so
// the first token does not wait for the reservation's transaction; funds that do not cover the call stop that model
// before it answered anything and the 402 is the answer, with nothing held or charged. Each reservation is delayed by
// 30 ms (300 ms in one test; standing for a database that is slow to commit) so that the order of the two is visible.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { loadChatConfig } from './config.ts';
import { createChatService, type ChatCall } from './chat-service.ts';
import type { ChatEngine, ChatEngineError, GenerateRequest, LocalChatEngine, StartRequest } from './engine/engine.ts';
import { createLlamaWorkerEngine } from './engine/llama-worker-engine.ts';
import { parseEvents, tinyModelPath } from './tiny-model-fixture.ts';
import type { AccountRow } from '../accounts/store.ts';
import type { Ledger } from '../billing/ledger.ts';
import { loadConfig } from '../config.ts';
import { ApiError } from '../http/api-error.ts';
import { startHarness, type Harness } from '../test-support/harness.ts';

const test = suite('chat start');
/** 1 minor unit per prompt token and 3 per completion token: even a one-token answer reserves something. */
const PRICES = JSON.stringify({ 'service-mini_prompt_tokens': 1000, 'service-mini_completion_tokens': 3000 });
let h: Harness;
let real: LocalChatEngine;

/** What the observed engine and ledger saw, in performance.now() milliseconds. */
interface Seen {
  generateStarted?: number;
  generateEnded?: { at: number; code: string };
  reserveSettled?: number;
}

test.before(async () => {
  h = await startHarness('sqlite');
  real = await createLlamaWorkerEngine({ ...loadChatConfig({}), modelPath: await tinyModelPath() });
});
test.after(async () => {
  await real?.close();
  await h?.close();
});

/** The real engine, observed; `kind` relabels it (an upstream engine is told apart by its kind alone). */
function observed(seen: Seen, kind: ChatEngine['kind'] = 'llama'): ChatEngine {
  const ended = <T>(answer: Promise<T>) =>
    answer.then(
      (result) => {
        seen.generateEnded = { at: performance.now(), code: 'ok' };
        return result;
      },
      (error: unknown) => {
        seen.generateEnded = { at: performance.now(), code: (error as ChatEngineError).code };
        throw error;
      },
    );
  return Object.assign(Object.create(real) as LocalChatEngine, {
    kind,
    async generate(request: GenerateRequest) {
      seen.generateStarted = performance.now();
      return ended(real.generate(request));
    },
    async start(request: StartRequest) {
      seen.generateStarted = performance.now();
      const started = await real.start(request);
      return started.answer ? { ...started, answer: ended(started.answer) } : started;
    },
  }) as ChatEngine;
}

function serviceWith(seen: Seen, kind: ChatEngine['kind'] = 'llama', reserveDelayMs = 30) {
  const ledger = h.app.services.ledger;
  return createChatService({
    engines: { 'service-mini': observed(seen, kind), close: async () => undefined },
    ledger: Object.assign(Object.create(ledger) as Ledger, {
      async reserve(...args: Parameters<Ledger['reserve']>) {
        await new Promise((resolve) => setTimeout(resolve, reserveDelayMs));
        try {
          return await ledger.reserve(...args);
        } finally {
          seen.reserveSettled = performance.now();
        }
      },
    }),
    prices: loadConfig({ SCRIBE_PRICES: PRICES }).prices,
    reserveCapTokens: 1000,
  });
}

async function accountWith(balance: number): Promise<AccountRow> {
  const { id } = await h.provision({ balance });
  return h.db('accounts').where({ id }).first();
}

const callOf = (account: AccountRow, extra: Partial<ChatCall> = {}): ChatCall => ({
  account,
  model: 'service-mini',
  messages: [{ role: 'user', content: 'Summarise the meeting in one sentence.' }],
  temperature: 0,
  maxTokens: 40,
  includeUsage: false,
  billing: 'charge',
  signal: new AbortController().signal,
  ...extra,
});

async function ledgerOf(account: AccountRow) {
  return {
    reservations: await h.db('reservations').where({ account_id: account.id }),
    entries: (await h.db('ledger_entries').where({ account_id: account.id }).orderBy('created_at')).map(
      (row: { kind: string }) => row.kind,
    ),
    balanceMinor: Number((await h.db('accounts').where({ id: account.id }).first()).balance_minor),
  };
}

test('a local model starts on the prompt while the funds are held; the answer is charged once', async () => {
  const seen: Seen = {};
  const account = await accountWith(100);
  const sse = await serviceWith(seen).stream(callOf(account));
  let body = '';
  sse.readable.on('data', (data: Buffer) => (body += data.toString()));
  await new Promise((resolve) => sse.readable.on('end', resolve));
  assert.ok(seen.generateStarted! < seen.reserveSettled! - 20, 'the model started before the funds were held');
  const events = parseEvents(body);
  assert.ok(events.done && events.content.length > 0, body);
  assert.equal(events.payloads[0].choices[0].delta, { role: 'assistant', content: '' });
  const after = await ledgerOf(account);
  assert.equal(
    after.reservations.map((r: { status: string }) => r.status),
    ['captured'],
  );
  assert.equal(after.entries.slice(1), ['reserve', 'release', 'capture']);
  assert.ok(after.balanceMinor < 10000, `charged: balance ${after.balanceMinor}`);
});

for (const mode of ['stream', 'complete'] as const) {
  test(`${mode}: funds that do not cover → 402; the model was stopped, nothing held or charged`, async () => {
    const seen: Seen = {};
    const account = await accountWith(0);
    let failed = 0;
    const service = serviceWith(seen);
    // 1000 tokens take the tiny model far longer than the 30 ms of the reservation: the refusal finds it still running.
    const refusal = await service[mode](callOf(account, { maxTokens: 1000, onFailed: async () => void failed++ })).then(
      () => undefined,
      (error: unknown) => error,
    );
    assert.instance(refusal, ApiError);
    assert.equal([(refusal as ApiError).status, (refusal as ApiError).code], [402, 'insufficient_balance']);
    // The model had started, and had been stopped by the time the 402 was the answer (its slot is free again).
    assert.ok(seen.generateStarted! < seen.reserveSettled!, 'the model started before the refusal');
    assert.is(seen.generateEnded?.code, 'cancelled');
    assert.is(failed, 1);
    const after = await ledgerOf(account);
    assert.equal([after.reservations.length, after.entries, after.balanceMinor], [0, [], 0]);
    // The next caller with funds gets the model (a single slot: the stopped answer released it).
    const next = await service.complete(callOf(await accountWith(100)));
    assert.ok(next.choices[0]!.message.content!.length > 0);
  });
}

test('an answer that ends before its funds are refused does not count: 402, onAnswer never called', async () => {
  const seen: Seen = {};
  const account = await accountWith(0);
  const outcomes: string[] = [];
  // 300 ms: a one-token answer (a few ms here) ends well before the refusal even on a loaded machine.
  const error = await serviceWith(seen, 'llama', 300)
    .complete(
      callOf(account, {
        maxTokens: 1,
        onAnswer: async () => void outcomes.push('answer'),
        onFailed: async () => void outcomes.push('failed'),
      }),
    )
    .then(
      () => undefined,
      (e: unknown) => e,
    );
  assert.is((error as ApiError).status, 402);
  assert.ok(seen.generateEnded!.at < seen.reserveSettled!, 'the one-token answer ended before the refusal');
  assert.is(seen.generateEnded!.code, 'ok');
  assert.equal(outcomes, ['failed']);
  const after = await ledgerOf(account);
  assert.equal([after.reservations.length, after.entries, after.balanceMinor], [0, [], 0]);
});

test('an upstream model is asked only once the funds are held, and not at all when they do not cover', async () => {
  const seen: Seen = {};
  const service = serviceWith(seen, 'openai-compatible');
  const answer = await service.complete(callOf(await accountWith(100)));
  assert.ok(answer.choices[0]!.message.content!.length > 0);
  assert.ok(seen.generateStarted! >= seen.reserveSettled!, 'the model was asked after the funds were held');

  const refused: Seen = {};
  let failed = 0;
  const error = await serviceWith(refused, 'openai-compatible')
    .complete(callOf(await accountWith(0), { onFailed: async () => void failed++ }))
    .then(
      () => undefined,
      (e: unknown) => e,
    );
  assert.is((error as ApiError).status, 402);
  assert.is(refused.generateStarted, undefined);
  assert.is(failed, 1);
});

test.run();
