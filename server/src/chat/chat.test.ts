// v3 chat through the API with the real llama engine on the generated tiny GGUF (random weights, real tokenizer and
// chat template), on SQLite and PostgreSQL: the model list and health, exact token counts, finish_reason length, the
// JSON modes (answers validate / parse), SSE framing and streamed = plain (greedy decoding is deterministic), the
// usage chunk, validation errors, 503 for a model without an engine, billing = tokens × price, 402 before
// generating, and a client that goes away mid-stream (generation stops, the generated tokens are charged).
import { Ajv2020 } from 'ajv/dist/2020.js';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { databaseKinds, startHarness, useHarness, type Harness } from '../test-support/harness.ts';
import { expectedPromptTokens, parseEvents, tinyModelPath } from './tiny-model-fixture.ts';

/** 1 minor unit per prompt token and 3 per completion token, so charges are exact integers. */
const PRICES = JSON.stringify({ 'service-mini_prompt_tokens': 1000, 'service-mini_completion_tokens': 3000 });
const CREATE = '/v3/chat/completions/create';
const USER = [{ role: 'user' as const, content: 'Summarise the meeting in one sentence.' }];

async function balanceMinor(h: Harness, accountId: string): Promise<number> {
  return Number((await h.db('accounts').where({ id: accountId }).first()).balance_minor);
}

async function captures(h: Harness, accountId: string): Promise<number[]> {
  const rows = await h.db('ledger_entries').where({ account_id: accountId, kind: 'capture' }).orderBy('created_at');
  return rows.map((row: { amount_minor: number | string }) => -Number(row.amount_minor));
}

for (const kind of databaseKinds) {
  const test = suite(`chat v3 (${kind})`);
  const modelPath = await tinyModelPath();
  const harness = useHarness(test, kind, {
    env: { SCRIBE_MINI_MODEL: modelPath, SCRIBE_PRICES: PRICES },
  });

  test('the model list and /health report the llama engine; service-pro without an engine is unavailable', async () => {
    const h = harness();
    const { apiKey } = await h.provision({ balance: 10 });
    const models = await h.v3(apiKey, 'GET', '/v3/models');
    const mini = models.body.data.find((m: { id: string }) => m.id === 'service-mini');
    const pro = models.body.data.find((m: { id: string }) => m.id === 'service-pro');
    assert.equal([mini.status, mini.engine, mini.context_window], ['available', 'llama', 1024]);
    assert.is(pro.status, 'unavailable');
    const health = await h.request('GET', '/health');
    assert.is(health.body.checks.engines.chat, 'available');
  });

  test('service-pro without an engine: 503 engine_unavailable saying how to configure one, nothing reserved', async () => {
    const h = harness();
    const { apiKey, id } = await h.provision({ balance: 10 });
    const reply = await h.v3(apiKey, 'POST', CREATE, { json: { model: 'service-pro', messages: USER } });
    assert.is(reply.status, 503);
    assert.is(reply.body.error.code, 'engine_unavailable');
    assert.match(reply.body.error.message, /SCRIBE_PRO_MODEL/);
    assert.is((await h.db('reservations').where({ account_id: id })).length, 0);
  });

  test('max_tokens 5 at temperature 0: finish_reason length, 5 completion tokens, exact prompt count, charged', async () => {
    const h = harness();
    const { apiKey, id } = await h.provision({ balance: 100 });
    const messages = [{ role: 'system' as const, content: 'You answer briefly.' }, ...USER];
    const before = await balanceMinor(h, id);
    const reply = await h.v3(apiKey, 'POST', CREATE, {
      json: { model: 'service-mini', messages, max_tokens: 5, temperature: 0 },
    });
    assert.is(reply.status, 200);
    const [choice] = reply.body.choices;
    assert.is(choice.finish_reason, 'length');
    assert.is(choice.message.role, 'assistant');
    const { usage } = reply.body;
    assert.is(usage.completion_tokens, 5);
    assert.is(usage.prompt_tokens, await expectedPromptTokens(messages));
    assert.is(usage.total_tokens, usage.prompt_tokens + 5);
    // Charged exactly tokens × price: 1 minor per prompt token, 3 per completion token; the reservation is settled.
    assert.is(before - (await balanceMinor(h, id)), usage.prompt_tokens + 3 * 5);
    assert.equal(await captures(h, id), [usage.prompt_tokens + 15]);
    const reservation = await h.db('reservations').where({ account_id: id }).first();
    assert.is(reservation.status, 'captured');
    assert.is(Number((await h.db('accounts').where({ id }).first()).reserved_minor), 0);
  });

  test('json_schema: the answer validates against the schema (anyOf included); json_object parses as an object', async () => {
    const h = harness();
    const { apiKey } = await h.provision({ balance: 100 });
    const schema = {
      type: 'object',
      properties: {
        decision: { type: 'string' },
        approved: { type: 'boolean' },
        owner: { anyOf: [{ type: 'string' }, { type: 'null' }] },
      },
      required: ['decision', 'approved', 'owner'],
      additionalProperties: false,
    };
    const validate = new Ajv2020({ strict: false }).compile(schema);
    for (let round = 0; round < 3; round++) {
      const reply = await h.v3(apiKey, 'POST', CREATE, {
        json: {
          model: 'service-mini',
          messages: [{ role: 'user', content: `Extract the decision, round ${round}.` }],
          response_format: { type: 'json_schema', json_schema: { name: 'decision', schema, strict: true } },
        },
      });
      // An answer is never returned unless it validates; the tiny model's answers end within a few dozen tokens.
      assert.is(reply.status, 200, reply.text);
      const value = JSON.parse(reply.body.choices[0].message.content);
      assert.ok(validate(value), JSON.stringify(validate.errors));
      assert.is(reply.body.choices[0].finish_reason, 'stop');
    }
    const object = await h.v3(apiKey, 'POST', CREATE, {
      json: {
        model: 'service-mini',
        messages: [{ role: 'user', content: 'JSON please' }],
        response_format: { type: 'json_object' },
      },
    });
    assert.is(object.status, 200, object.text);
    const parsed = JSON.parse(object.body.choices[0].message.content);
    assert.ok(parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed));
  });

  test('an answer the grammar cannot make valid is never a success: 400 naming the schema plain, in-band streamed', async () => {
    const h = harness();
    const { apiKey, id } = await h.provision({ balance: 100 });
    // node-llama-cpp's grammar does not enforce `pattern`: the answer is JSON of the right shape that Ajv refuses.
    const schema = {
      type: 'object',
      properties: { code: { type: 'string', pattern: '^[0-9]{30}$' } },
      required: ['code'],
    };
    const body = {
      model: 'service-mini',
      temperature: 0,
      messages: USER,
      response_format: { type: 'json_schema', json_schema: { name: 'code', schema } },
    };
    const plain = await h.v3(apiKey, 'POST', CREATE, { json: body });
    // Not a 5xx, which SDKs retry for the same result: the schema asks for what the engine cannot enforce.
    assert.equal(
      [plain.status, plain.body.error.code, plain.body.error.param],
      [400, 'invalid_parameter', 'response_format.json_schema.schema'],
    );
    assert.match(plain.body.error.message, /does not satisfy the schema code: \/code must match pattern .*not pattern/);
    const streamed = await h.v3(apiKey, 'POST', CREATE, { json: { ...body, stream: true } });
    assert.is(streamed.status, 200);
    const { payloads, done } = parseEvents(streamed.text);
    assert.ok(done);
    assert.equal(payloads.at(-1).error.code, 'invalid_parameter');
    assert.ok(
      payloads.every((p) => !p.choices?.[0]?.finish_reason),
      'no finishing chunk after a failure',
    );
    // The tokens generated were charged (prompt + 3 × completion each time), and nothing stays reserved.
    const prompt = await expectedPromptTokens(USER);
    const charged = await captures(h, id);
    assert.is(charged.length, 2);
    assert.ok(
      charged.every((amount) => amount > prompt && (amount - prompt) % 3 === 0),
      charged.join(),
    );
    assert.is(Number((await h.db('accounts').where({ id }).first()).reserved_minor), 0);
  });

  test('a JSON answer cut by max_tokens is 200 with finish_reason length, plain and streamed, as OpenAI answers', async () => {
    const h = harness();
    const { apiKey } = await h.provision({ balance: 100 });
    const schema = { type: 'object', properties: { summary: { type: 'string' } }, required: ['summary'] };
    for (const response_format of [
      { type: 'json_object' },
      { type: 'json_schema', json_schema: { name: 'summary', schema } },
    ]) {
      const body = { model: 'service-mini', messages: USER, max_tokens: 3, temperature: 0, response_format };
      const plain = await h.v3(apiKey, 'POST', CREATE, { json: body });
      assert.is(plain.status, 200, plain.text);
      assert.is(plain.body.choices[0].finish_reason, 'length');
      assert.is(plain.body.usage.completion_tokens, 3);
      assert.throws(() => JSON.parse(plain.body.choices[0].message.content), 'three tokens are not whole JSON');
      const streamed = await h.v3(apiKey, 'POST', CREATE, { json: { ...body, stream: true } });
      const { payloads, content } = parseEvents(streamed.text);
      assert.is(content, plain.body.choices[0].message.content);
      assert.is(payloads.at(-1).choices[0].finish_reason, 'length');
    }
  });

  test('SSE: role chunk, content chunks, finish chunk, usage chunk, [DONE]; streamed text = the plain answer', async () => {
    const h = harness();
    const { apiKey, id } = await h.provision({ balance: 100 });
    const body = { model: 'service-mini', messages: USER, max_tokens: 12, temperature: 0 };
    const plain = await h.v3(apiKey, 'POST', CREATE, { json: body });
    const before = await balanceMinor(h, id);
    const streamed = await h.v3(apiKey, 'POST', CREATE, {
      json: { ...body, stream: true, stream_options: { include_usage: true } },
    });
    assert.is(streamed.status, 200);
    assert.match(streamed.headers.get('content-type') ?? '', /^text\/event-stream/);
    const { payloads, content, done } = parseEvents(streamed.text);
    assert.ok(done);
    assert.equal(payloads[0].choices[0].delta, { role: 'assistant', content: '' });
    const finish = payloads.at(-2);
    assert.equal(finish.choices[0], { index: 0, delta: {}, finish_reason: 'length' });
    const usage = payloads.at(-1);
    assert.equal(usage.choices, []);
    assert.equal(usage.usage, plain.body.usage);
    const middle = payloads.slice(1, -2);
    assert.ok(middle.length >= 1 && middle.every((p) => typeof p.choices[0].delta.content === 'string'));
    assert.ok(middle.length <= usage.usage.completion_tokens);
    assert.ok(payloads.every((p) => p.id === payloads[0].id));
    // Greedy decoding is deterministic: the concatenated deltas are the plain answer.
    assert.is(content, plain.body.choices[0].message.content);
    assert.is(before - (await balanceMinor(h, id)), usage.usage.prompt_tokens + 3 * usage.usage.completion_tokens);
  });

  test('content chunks are at most about every 20 ms: a model faster than that sends several tokens per chunk', async () => {
    const h = harness();
    const { apiKey } = await h.provision({ balance: 100 });
    const body = { model: 'service-mini', messages: USER, max_tokens: 200, temperature: 0 };
    const plain = await h.v3(apiKey, 'POST', CREATE, { json: body });
    const started = performance.now();
    const streamed = await h.v3(apiKey, 'POST', CREATE, { json: { ...body, stream: true } });
    const elapsedMs = performance.now() - started;
    const { payloads, content } = parseEvents(streamed.text);
    const contentChunks = payloads.filter((p) => p.choices?.[0]?.delta.content).length;
    // The whole request took longer than the server spent writing, so this bound holds whatever the machine's pace;
    // the tiny model makes a token in about a millisecond, so a chunk per token would exceed it several times over.
    assert.ok(
      contentChunks <= Math.floor(elapsedMs / 20) + 2,
      `${contentChunks} content chunks in ${elapsedMs.toFixed(0)} ms for ${plain.body.usage.completion_tokens} tokens`,
    );
    assert.is(content, plain.body.choices[0].message.content, 'the chunks still hold the whole answer');
  });

  test('without include_usage there is no usage chunk; max_completion_tokens wins over max_tokens', async () => {
    const h = harness();
    const { apiKey } = await h.provision({ balance: 100 });
    const reply = await h.v3(apiKey, 'POST', CREATE, {
      json: {
        model: 'service-mini',
        messages: USER,
        max_tokens: 50,
        max_completion_tokens: 3,
        temperature: 0,
        stream: true,
      },
    });
    const { payloads } = parseEvents(reply.text);
    assert.equal(payloads.at(-1).choices[0], { index: 0, delta: {}, finish_reason: 'length' });
    assert.ok(payloads.every((p) => !('usage' in p)));
    const plain = await h.v3(apiKey, 'POST', CREATE, {
      json: { model: 'service-mini', messages: USER, max_tokens: 50, max_completion_tokens: 3, temperature: 0 },
    });
    assert.is(plain.body.usage.completion_tokens, 3);
  });

  test('validation: temperature, empty messages, json_schema without name, unknown model, context too long', async () => {
    const h = harness();
    const { apiKey } = await h.provision({ balance: 100 });
    const post = (json: unknown) => h.v3(apiKey, 'POST', CREATE, { json });
    let reply = await post({ model: 'service-mini', messages: USER, temperature: 2.5 });
    assert.equal([reply.status, reply.body.error.param], [400, 'temperature']);
    reply = await post({ model: 'service-mini', messages: [] });
    assert.equal([reply.status, reply.body.error.param], [400, 'messages']);
    reply = await post({
      model: 'service-mini',
      messages: USER,
      response_format: { type: 'json_schema', json_schema: { schema: { type: 'object' } } },
    });
    assert.equal(
      [reply.status, reply.body.error.code, reply.body.error.param],
      [400, 'missing_parameter', 'response_format.json_schema.name'],
    );
    reply = await post({
      model: 'service-mini',
      messages: USER,
      response_format: { type: 'json_schema', json_schema: { name: 'bad', schema: { type: 'text' } } },
    });
    assert.equal(
      [reply.status, reply.body.error.code, reply.body.error.param],
      [400, 'invalid_parameter', 'response_format.json_schema.schema'],
    );
    reply = await post({ model: 'service-giant', messages: USER });
    assert.equal([reply.status, reply.body.error.code], [404, 'model_not_found']);
    reply = await post({ model: 'service-mini', messages: [{ role: 'user', content: 'word '.repeat(1500) }] });
    assert.equal(
      [reply.status, reply.body.error.code, reply.body.error.param],
      [400, 'context_length_exceeded', 'messages'],
    );
  });

  test('402 insufficient_balance before generating: nothing reserved, nothing charged', async () => {
    const h = harness();
    // 0.50 = 50 minor: less than prompt + (context - prompt) × 3 reserved for the default max_tokens.
    const { apiKey, id } = await h.provision({ balance: 0.5 });
    const reply = await h.v3(apiKey, 'POST', CREATE, { json: { model: 'service-mini', messages: USER } });
    assert.equal([reply.status, reply.body.error.code], [402, 'insufficient_balance']);
    assert.is(await balanceMinor(h, id), 50);
    assert.is((await h.db('reservations').where({ account_id: id })).length, 0);
    // A small max_tokens fits the same balance.
    const small = await h.v3(apiKey, 'POST', CREATE, {
      json: { model: 'service-mini', messages: USER, max_tokens: 2 },
    });
    assert.is(small.status, 200);
  });

  test('a client that goes away mid-stream stops generation; the tokens generated are charged', async () => {
    const h = harness();
    const { apiKey, id } = await h.provision({ balance: 100 });
    const controller = new AbortController();
    const response = await fetch(`${h.baseUrl}${CREATE}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
      // Greedy decoding on the tiny model never ends by itself: only the context (1024 tokens) would stop it.
      body: JSON.stringify({ model: 'service-mini', messages: USER, temperature: 0, stream: true }),
      signal: controller.signal,
    });
    const reader = response.body!.getReader();
    let received = '';
    while ((received.match(/\n\n/g) ?? []).length < 3)
      received += new TextDecoder().decode((await reader.read()).value);
    controller.abort();
    let reservation;
    for (let i = 0; i < 100; i++) {
      reservation = await h.db('reservations').where({ account_id: id }).first();
      if (reservation.status !== 'active') break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.is(reservation.status, 'captured');
    const prompt = await expectedPromptTokens(USER);
    const [charged] = await captures(h, id);
    const generated = (charged! - prompt) / 3;
    assert.ok(Number.isInteger(generated) && generated >= 2, `charged ${charged}`);
    assert.ok(generated < 1024 - prompt, `generation was not stopped: ${generated} tokens`);
    // The model is free again.
    const next = await h.v3(apiKey, 'POST', CREATE, { json: { model: 'service-mini', messages: USER, max_tokens: 2 } });
    assert.is(next.status, 200);
  });

  test('a GGUF path that does not load stops the start with the reason', async () => {
    try {
      const started = await startHarness(kind, { env: { SCRIBE_MINI_MODEL: '/nonexistent/model.gguf' } });
      await started.close();
      assert.unreachable('the server started without its model');
    } catch (error) {
      assert.match((error as Error).message, /service-mini: cannot load the GGUF model \/nonexistent\/model\.gguf/);
    }
  });

  test('a bounded queue per model: one generation runs, SCRIBE_CHAT_QUEUE wait, one more is 503 (busy)', async () => {
    const busy = await startHarness(kind, {
      env: { SCRIBE_MINI_MODEL: modelPath, SCRIBE_CHAT_PARALLEL: '1', SCRIBE_CHAT_QUEUE: '1' },
    });
    try {
      const { apiKey } = await busy.provision({ balance: 100 });
      // Five greedy 900-token answers (of the tiny model's 1024) asked at once. With one slot and one place in the
      // queue, whichever arrives first runs, one waits, and any that arrives while both are taken is refused; for all
      // five to succeed, each would have to reach the server only after the one before it had finished, which a
      // server with a working bound never shows (the order in which they arrive is left to the machine: on a loaded
      // one, PostgreSQL's authentication and reservation spread the arrivals, so no request is assumed to be first).
      const long = { model: 'service-mini', messages: USER, temperature: 0, max_tokens: 900 };
      const replies = await Promise.all([0, 1, 2, 3, 4].map(() => busy.v3(apiKey, 'POST', CREATE, { json: long })));
      const refused = replies.filter((r) => r.status === 503);
      const answered = replies.filter((r) => r.status === 200);
      assert.is(refused.length + answered.length, 5, `statuses: ${replies.map((r) => r.status).join(', ')}`);
      assert.ok(refused.length >= 1, 'five at once against one slot and one queue place: none was refused');
      assert.ok(answered.length >= 2, 'one running and one waiting both succeed');
      for (const reply of refused) {
        assert.is(reply.body.error.code, 'engine_unavailable');
        assert.match(reply.body.error.message, /busy/);
      }
      // The refused requests were charged nothing.
      const captured = await busy.db('ledger_entries').where({ kind: 'capture' });
      assert.is(captured.length, answered.length);
    } finally {
      await busy.close();
    }
  });

  test.run();
}
