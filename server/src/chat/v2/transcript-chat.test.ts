// v2 chat through the API with signed requests, on SQLite and PostgreSQL: the llama engine on the tiny GGUF, real
// PocketSphinx transcripts of a real recording. POST /v2/chat/completions (OpenAI body, v2 errors); the transcript
// chat: history kept per transcription, 5 free service-mini requests (the creation prompt's analysis is one of them),
// then billed; service-pro billed from the first; 402, NOT_READY, 404 for another account's transcription; a streamed
// answer; `ai_analysis` filled for a transcription created with `prompt`.
import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { goforward } from '../../test-support/audio.ts';
import { databaseKinds, useHarness, type Harness, type Provisioned } from '../../test-support/harness.ts';
import { parseEvents, tinyModelPath } from '../tiny-model-fixture.ts';

/** mini: 1 minor per prompt token, 3 per completion token; pro: 2 and 6. */
const PRICES = JSON.stringify({
  'service-mini_prompt_tokens': 1000,
  'service-mini_completion_tokens': 3000,
  'service-pro_prompt_tokens': 2000,
  'service-pro_completion_tokens': 6000,
});

async function transcribe(h: Harness, account: Provisioned, prompt?: string): Promise<string> {
  const form = new FormData();
  form.set('language', 'en');
  if (prompt) form.set('prompt', prompt);
  form.set('file', new Blob([readFileSync(goforward('wav'))]), 'goforward.wav');
  const created = await h.signed(account.signer, 'POST', '/v2/transcriptions', { form });
  assert.is(created.status, 201, created.text);
  const id = created.body.transcription_id as string;
  for (const until = Date.now() + 60_000; Date.now() < until;) {
    const reply = await h.signed(account.signer, 'GET', `/v2/transcriptions/${id}`);
    if (reply.body.data.status === 'completed') return id;
    assert.ok(['pending', 'processing'].includes(reply.body.data.status), reply.text);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`transcription ${id} did not complete`);
}

/** Capture amounts (minor units, positive) of an account, excluding the transcription's own. */
async function chatCharges(h: Harness, accountId: string): Promise<number[]> {
  const rows = await h.db('ledger_entries').where({ account_id: accountId, kind: 'capture' }).orderBy('created_at');
  return rows
    .filter((row: { description: string | null }) => /prompt \+ .* completion tokens/.test(row.description ?? ''))
    .map((row: { amount_minor: number | string }) => -Number(row.amount_minor));
}

for (const kind of databaseKinds) {
  const test = suite(`chat v2 (${kind})`);
  const modelPath = await tinyModelPath();
  const harness = useHarness(test, kind, {
    env: {
      SCRIBE_MINI_MODEL: modelPath,
      SCRIBE_PRO_MODEL: modelPath,
      SCRIBE_PRICES: PRICES,
      SCRIBE_RATE_LIMIT_RPS: '1000',
      SCRIBE_JOB_POLL_MS: '200',
    },
  });
  const chat = (h: Harness, account: Provisioned, id: string, json: object) =>
    h.signed(account.signer, 'POST', `/v2/transcriptions/${id}/chat/completions`, { json });

  test('POST /v2/chat/completions: the OpenAI body, billed by tokens; a bad model is a v2 validation error', async () => {
    const h = harness();
    const account = await h.provision({ balance: 100 });
    const reply = await h.signed(account.signer, 'POST', '/v2/chat/completions', {
      json: { model: 'service-mini', messages: [{ role: 'user', content: 'Hello' }], max_tokens: 4, temperature: 0 },
    });
    assert.is(reply.status, 200, reply.text);
    assert.is(reply.body.usage.completion_tokens, 4);
    const { prompt_tokens: p } = reply.body.usage;
    assert.equal(await chatCharges(h, account.id), [p + 12]);
    const bad = await h.signed(account.signer, 'POST', '/v2/chat/completions', {
      json: { model: 'gpt-4o', messages: [{ role: 'user', content: 'Hello' }] },
    });
    assert.equal([bad.status, bad.body.error], [400, 'VALIDATION_ERROR']);
    const poor = await h.provision({ balance: 0 });
    const refused = await h.signed(poor.signer, 'POST', '/v2/chat/completions', {
      json: { model: 'service-mini', messages: [{ role: 'user', content: 'Hello' }] },
    });
    assert.equal([refused.status, refused.body.error], [402, 'INSUFFICIENT_FUNDS']);
  });

  test('transcript chat: 5 free service-mini requests, the sixth billed; the history grows; service-pro billed', async () => {
    const h = harness();
    const account = await h.provision({ balance: 100 });
    const id = await transcribe(h, account);
    const prompts: number[] = [];
    for (let round = 1; round <= 6; round++) {
      const reply = await chat(h, account, id, { messages: [`Question ${round}?`], maxTokens: 3 });
      assert.is(reply.status, 200, reply.text);
      assert.is(reply.body.usage.completion_tokens, 3);
      prompts.push(reply.body.usage.prompt_tokens);
      const charges = await chatCharges(h, account.id);
      if (round <= 5) assert.equal(charges, [], `request ${round} is free`);
      else assert.equal(charges, [reply.body.usage.prompt_tokens + 9], 'the sixth request is billed');
    }
    // Every request sees the earlier turns: its prompt holds the previous question and answer (3 tokens) at least.
    for (let i = 1; i < prompts.length; i++) assert.ok(prompts[i]! > prompts[i - 1]! + 3, prompts.join());
    const turns = await h.db('transcript_chats').where({ transcription_id: id }).orderBy('created_at');
    assert.equal(
      turns.map((t: { questions: string }) => JSON.parse(t.questions)),
      [1, 2, 3, 4, 5, 6].map((n) => [`Question ${n}?`]),
    );
    assert.ok(
      turns.every((t: { status: string; answer: string | null }) => t.status === 'answered' && t.answer !== null),
    );

    const pro = await chat(h, account, id, { messages: ['And with pro?'], model: 'service-pro', max_tokens: 2 });
    assert.is(pro.status, 200, pro.text);
    const { prompt_tokens: p, completion_tokens: c } = pro.body.usage;
    assert.is((await chatCharges(h, account.id)).at(-1), 2 * p + 6 * c);
  });

  test('a transcription created with prompt gets ai_analysis, which counts as one of the five free requests', async () => {
    const h = harness();
    const account = await h.provision({ balance: 100 });
    const id = await transcribe(h, account, 'List the action items.');
    let analysis;
    for (let i = 0; i < 100 && !analysis; i++) {
      analysis = (await h.signed(account.signer, 'GET', `/v2/transcriptions/${id}`)).body.data.ai_analysis;
      if (!analysis) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.ok(analysis, 'ai_analysis was filled');
    assert.is(analysis.model, 'service-mini');
    assert.is(analysis.prompt, 'List the action items.');
    assert.type(analysis.text, 'string');
    for (let round = 1; round <= 5; round++) {
      const reply = await chat(h, account, id, { messages: [`Q${round}`], max_tokens: 2 });
      assert.is(reply.status, 200, reply.text);
      assert.is((await chatCharges(h, account.id)).length, round <= 4 ? 0 : 1, `request ${round}`);
    }
  });

  test('streamed transcript chat; 402 stores no turn; NOT_READY before the transcript; 404 for another account', async () => {
    const h = harness();
    const account = await h.provision({ balance: 100 });
    const id = await transcribe(h, account);
    const streamed = await chat(h, account, id, { messages: ['Stream it.'], stream: true, max_tokens: 5 });
    assert.is(streamed.status, 200);
    const events = parseEvents(streamed.text);
    assert.ok(events.done);
    assert.is(events.payloads.at(-1).choices[0].finish_reason, 'length');
    const [turn] = await h.db('transcript_chats').where({ transcription_id: id });
    assert.is(turn.answer, events.content);

    // service-pro is always billed: an empty account is refused before generating, and no turn is kept.
    await h.db('accounts').where({ id: account.id }).update({ balance_minor: 0 });
    const refused = await chat(h, account, id, { messages: ['Pro please.'], model: 'service-pro' });
    assert.equal([refused.status, refused.body.error], [402, 'INSUFFICIENT_FUNDS']);
    assert.is((await h.db('transcript_chats').where({ transcription_id: id })).length, 1);

    // A transcription still being processed (its row copied, without a result).
    const row = await h.db('transcriptions').where({ id }).first();
    const pending = randomUUID();
    await h
      .db('transcriptions')
      .insert({ ...row, id: pending, status: 'processing', result: null, completed_at: null });
    const early = await chat(h, account, pending, { messages: ['Too early?'] });
    assert.equal([early.status, early.body.error], [400, 'NOT_READY']);

    const other = await h.provision({ balance: 100 });
    const foreign = await chat(h, other, id, { messages: ['Not mine.'] });
    assert.equal([foreign.status, foreign.body.error], [404, 'NOT_FOUND']);
    const both = await chat(h, account, id, { messages: ['x'], maxTokens: 2, max_tokens: 2 });
    assert.equal([both.status, both.body.error], [400, 'VALIDATION_ERROR']);
  });

  test.run();
}
