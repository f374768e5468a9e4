// POST /v3/responses through the API with the real llama engine on the tiny GGUF, on SQLite and PostgreSQL: the
// `response` object (incomplete by max_output_tokens, exact token counts, the same answer as chat for the same
// messages at temperature 0), json_schema and json_object through `text.format`, the streamed events in OpenAI's order
// with their names and sequence numbers (the deltas are the plain answer), one charge per call, and the refusals
// (stored state and item references, an unknown item or tool type, a part that is not text, a failing schema, a context
// too long, no key).
import { Ajv2020 } from 'ajv/dist/2020.js';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { databaseKinds, useHarness, type Harness } from '../../test-support/harness.ts';
import { expectedPromptTokens, tinyModelPath } from '../tiny-model-fixture.ts';
import { balanceMinor, namedEvents } from './responses-fixture.ts';

/** 1 minor unit per prompt token and 3 per completion token, so charges are exact integers. */
const PRICES = JSON.stringify({ 'service-mini_prompt_tokens': 1000, 'service-mini_completion_tokens': 3000 });
const RESPONSES = '/v3/responses';
const INSTRUCTIONS = 'You answer briefly.';
const INPUT = 'Summarise the meeting in one sentence.';
/** The chat messages a request with INSTRUCTIONS and INPUT stands for. */
const MESSAGES = [
  { role: 'system' as const, content: INSTRUCTIONS },
  { role: 'user' as const, content: INPUT },
];

async function captures(h: Harness, accountId: string): Promise<number[]> {
  const rows = await h.db('ledger_entries').where({ account_id: accountId, kind: 'capture' }).orderBy('created_at');
  return rows.map((row: { amount_minor: number | string }) => -Number(row.amount_minor));
}

for (const kind of databaseKinds) {
  const test = suite(`responses v3 (${kind})`);
  const harness = useHarness(test, kind, {
    env: { SCRIBE_MINI_MODEL: await tinyModelPath(), SCRIBE_PRICES: PRICES, SCRIBE_RATE_LIMIT_RPS: '1000' },
  });

  test('max_output_tokens 5: incomplete with reason max_output_tokens, exact token counts, charged once', async () => {
    const h = harness();
    const { apiKey, id } = await h.provision({ balance: 100 });
    const before = await balanceMinor(h, id);
    const reply = await h.v3(apiKey, 'POST', RESPONSES, {
      json: {
        model: 'service-mini',
        instructions: INSTRUCTIONS,
        input: INPUT,
        max_output_tokens: 5,
        temperature: 0,
        metadata: { ticket: 'T-1' },
        store: true,
        user: 'u-1',
        top_p: 0.5,
      },
    });
    assert.is(reply.status, 200, reply.text);
    const response = reply.body;
    assert.match(response.id, /^resp_[0-9a-f]{32}$/);
    assert.equal(
      [response.object, response.status, response.incomplete_details, response.model],
      ['response', 'incomplete', { reason: 'max_output_tokens' }, 'service-mini'],
    );
    // Nothing is stored whatever `store` asked; the settings are echoed.
    assert.equal([response.store, response.metadata, response.instructions], [false, { ticket: 'T-1' }, INSTRUCTIONS]);
    assert.equal([response.max_output_tokens, response.temperature, response.top_p], [5, 0, 0.5]);
    assert.is(response.output.length, 1);
    const [item] = response.output;
    assert.equal([item.type, item.role, item.status, item.content.length], ['message', 'assistant', 'incomplete', 1]);
    assert.match(item.id, /^msg_[0-9a-f]{32}$/);
    assert.is(item.content[0].type, 'output_text');
    assert.ok(item.content[0].text.length > 0);
    const { usage } = response;
    assert.is(usage.output_tokens, 5);
    assert.is(usage.input_tokens, await expectedPromptTokens(MESSAGES));
    assert.is(usage.total_tokens, usage.input_tokens + 5);
    // Charged exactly tokens × price, once; nothing stays reserved.
    assert.is(before - (await balanceMinor(h, id)), usage.input_tokens + 3 * 5);
    assert.equal(await captures(h, id), [usage.input_tokens + 15]);
    assert.is(Number((await h.db('accounts').where({ id }).first()).reserved_minor), 0);
  });

  test('message items (developer, input_text and output_text parts) give the same answer as chat for those messages', async () => {
    const h = harness();
    const { apiKey } = await h.provision({ balance: 100 });
    const input = [
      { role: 'developer', content: INSTRUCTIONS },
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'When do we ship?' }] },
      { role: 'assistant', content: [{ type: 'output_text', text: 'On Friday.', annotations: [] }], id: 'msg_1' },
      {
        role: 'user',
        content: [
          { type: 'input_text', text: 'Who signs' },
          { type: 'input_text', text: 'off?' },
        ],
      },
    ];
    const messages = [
      { role: 'system' as const, content: INSTRUCTIONS },
      { role: 'user' as const, content: 'When do we ship?' },
      { role: 'assistant' as const, content: 'On Friday.' },
      { role: 'user' as const, content: 'Who signs\noff?' },
    ];
    const response = await h.v3(apiKey, 'POST', RESPONSES, {
      json: { model: 'service-mini', input, max_output_tokens: 6, temperature: 0 },
    });
    const chat = await h.v3(apiKey, 'POST', '/v3/chat/completions', {
      json: { model: 'service-mini', messages, max_tokens: 6, temperature: 0 },
    });
    assert.is(response.status, 200, response.text);
    assert.is(response.body.output[0].content[0].text, chat.body.choices[0].message.content);
    assert.is(response.body.usage.input_tokens, chat.body.usage.prompt_tokens);
    assert.is(response.body.usage.input_tokens, await expectedPromptTokens(messages));
  });

  test('text.format json_schema: completed, the text validates; json_object parses as an object', async () => {
    const h = harness();
    const { apiKey } = await h.provision({ balance: 100 });
    const schema = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: { decision: { type: 'string' }, approved: { type: 'boolean' } },
      required: ['decision', 'approved'],
      additionalProperties: false,
    };
    const validate = new Ajv2020({ strict: false }).compile({ ...schema, $schema: undefined });
    const format = { type: 'json_schema', name: 'decision', schema, strict: true };
    const reply = await h.v3(apiKey, 'POST', RESPONSES, {
      json: { model: 'service-mini', input: 'Extract the decision.', text: { format } },
    });
    assert.is(reply.status, 200, reply.text);
    assert.equal([reply.body.status, reply.body.incomplete_details], ['completed', null]);
    assert.equal(reply.body.text.format, format);
    assert.is(reply.body.output[0].status, 'completed');
    const value = JSON.parse(reply.body.output[0].content[0].text);
    assert.ok(validate(value), JSON.stringify(validate.errors));
    const object = await h.v3(apiKey, 'POST', RESPONSES, {
      json: { model: 'service-mini', input: 'JSON please', text: { format: { type: 'json_object' } } },
    });
    assert.is(object.status, 200, object.text);
    const parsed = JSON.parse(object.body.output[0].content[0].text);
    assert.ok(parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed));
  });

  test('stream: the events in order, named and numbered from 0; the deltas are the plain answer; charged once', async () => {
    const h = harness();
    const { apiKey, id } = await h.provision({ balance: 100 });
    const body = {
      model: 'service-mini',
      instructions: INSTRUCTIONS,
      input: INPUT,
      max_output_tokens: 9,
      temperature: 0,
    };
    const plain = await h.v3(apiKey, 'POST', RESPONSES, { json: body });
    const streamed = await h.v3(apiKey, 'POST', RESPONSES, { json: { ...body, stream: true } });
    assert.is(streamed.status, 200);
    assert.match(streamed.headers.get('content-type')!, /^text\/event-stream/);
    assert.not.match(streamed.text, /\[DONE\]/);
    const events = namedEvents(streamed.text);
    assert.equal(
      events.map((event) => event.payload.sequence_number),
      events.map((_, index) => index),
    );
    for (const event of events) assert.is(event.name, event.payload.type);
    const names = events.map((event) => event.name);
    const deltas = names.filter((name) => name === 'response.output_text.delta').length;
    assert.ok(deltas >= 1);
    assert.equal(names, [
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      ...Array<string>(deltas).fill('response.output_text.delta'),
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.incomplete',
    ]);
    const [created, , added] = events;
    assert.equal([created!.payload.response.status, created!.payload.response.usage], ['in_progress', null]);
    const text = events
      .filter((event) => event.name === 'response.output_text.delta')
      .map((event) => event.payload.delta)
      .join('');
    const itemId = added!.payload.item.id;
    const last = events.at(-1)!.payload.response;
    assert.is(last.id, created!.payload.response.id);
    assert.ok(events.slice(3, -2).every((event) => event.payload.item_id === itemId));
    assert.is(text, plain.body.output[0].content[0].text);
    assert.is(events.at(-4)!.payload.text, text);
    assert.equal(last.output, [
      {
        type: 'message',
        id: itemId,
        status: 'incomplete',
        role: 'assistant',
        content: [{ type: 'output_text', text, annotations: [] }],
      },
    ]);
    assert.equal([last.status, last.usage.output_tokens], ['incomplete', 9]);
    assert.equal(last.usage, plain.body.usage);
    // Two calls, two charges of input + 3 × 9 each.
    assert.equal(await captures(h, id), [last.usage.input_tokens + 27, last.usage.input_tokens + 27]);
    assert.is(Number((await h.db('accounts').where({ id }).first()).reserved_minor), 0);
  });

  test('a stream that ends by itself is response.completed; a failing schema is an error event, its tokens charged', async () => {
    const h = harness();
    const { apiKey, id } = await h.provision({ balance: 100 });
    const done = await h.v3(apiKey, 'POST', RESPONSES, {
      json: {
        model: 'service-mini',
        input: 'JSON please',
        stream: true,
        text: { format: { type: 'json_object' } },
      },
    });
    const events = namedEvents(done.text);
    assert.is(events.at(-1)!.name, 'response.completed');
    assert.is(events.at(-1)!.payload.response.status, 'completed');
    // node-llama-cpp's grammar does not enforce `pattern`: the whole answer fails its schema after the stream began.
    const schema = {
      type: 'object',
      properties: { code: { type: 'string', pattern: '^[0-9]{30}$' } },
      required: ['code'],
    };
    const failing = await h.v3(apiKey, 'POST', RESPONSES, {
      json: {
        model: 'service-mini',
        input: INPUT,
        temperature: 0,
        stream: true,
        text: { format: { type: 'json_schema', name: 'code', schema } },
      },
    });
    const failed = namedEvents(failing.text);
    const last = failed.at(-1)!;
    assert.is(last.name, 'error');
    assert.equal([last.payload.error.code, last.payload.error.param], ['invalid_parameter', 'text.format.schema']);
    assert.ok(
      !failed.some((event) => event.name === 'response.completed' || event.name === 'response.output_text.done'),
    );
    const plain = await h.v3(apiKey, 'POST', RESPONSES, {
      json: {
        model: 'service-mini',
        input: INPUT,
        temperature: 0,
        text: { format: { type: 'json_schema', name: 'code', schema } },
      },
    });
    assert.equal(
      [plain.status, plain.body.error.code, plain.body.error.param],
      [400, 'invalid_parameter', 'text.format.schema'],
    );
    assert.is((await captures(h, id)).length, 3);
    assert.is(Number((await h.db('accounts').where({ id }).first()).reserved_minor), 0);
  });

  test('400: stored state, item references, unknown item and tool types, a part that is not text, bad limits and schemas, a context too long; nothing reserved', async () => {
    const h = harness();
    const { apiKey, id } = await h.provision({ balance: 100 });
    const post = (json: unknown) => h.v3(apiKey, 'POST', RESPONSES, { json });
    const refused = async (json: unknown, code: string, param: string | RegExp, message?: RegExp) => {
      const reply = await post(json);
      assert.equal([reply.status, reply.body.error.code], [400, code], reply.text);
      if (typeof param === 'string') assert.is(reply.body.error.param, param);
      else assert.match(reply.body.error.param, param);
      if (message) assert.match(reply.body.error.message, message);
    };
    const base = { model: 'service-mini', input: INPUT };
    await refused(
      { ...base, previous_response_id: 'resp_1' },
      'invalid_parameter',
      'previous_response_id',
      /must be null/,
    );
    await refused({ ...base, conversation: 'conv_1' }, 'invalid_parameter', 'conversation', /must be null/);
    // A reference to a stored item (what the AI SDK sends by default for an earlier answer): named, with the way out.
    await refused(
      {
        ...base,
        input: [
          { role: 'user', content: 'Hi' },
          { type: 'item_reference', id: 'msg_1' },
        ],
      },
      'invalid_parameter',
      'input.1',
      /^input\.1 is an item_reference \(to msg_1\), but this server stores no responses or items: send the full item instead \(.*store to false\)\.$/,
    );
    await refused(
      { ...base, input: [{ type: 'reasoning', id: 'rs_1', summary: [] }] },
      'invalid_parameter',
      'input.0.type',
      /^input\.0\.type must be one of message, function_call, function_call_output, item_reference\.$/,
    );
    // Only function tools exist: a hosted tool's type is the error, not the fields a function would need.
    await refused(
      { ...base, tools: [{ type: 'web_search' }] },
      'invalid_parameter',
      'tools.0.type',
      /^tools\.0\.type must be equal to constant\.$/,
    );
    await refused(
      { ...base, input: [{ role: 'user', content: [{ type: 'input_image', image_url: 'https://x/y.png' }] }] },
      'invalid_parameter',
      'input.0.content.0.type',
      /^input\.0\.content\.0\.type must be one of input_text, output_text\.$/,
    );
    await refused({ ...base, max_output_tokens: 0 }, 'invalid_parameter', 'max_output_tokens');
    await refused({ ...base, temperature: 3 }, 'invalid_parameter', 'temperature');
    await refused({ ...base, input: [] }, 'invalid_parameter', 'input');
    await refused(
      { ...base, text: { format: { type: 'json_schema', name: 'bad', schema: { type: 'text' } } } },
      'invalid_parameter',
      'text.format.schema',
      /^text\.format\.schema/,
    );
    await refused({ ...base, input: 'word '.repeat(1500) }, 'context_length_exceeded', 'input', /^The input has/);
    // An empty tool list and a null previous_response_id are what some callers send by default: accepted.
    const accepted = await post({ ...base, tools: [], previous_response_id: null, max_output_tokens: 2 });
    assert.is(accepted.status, 200, accepted.text);
    assert.is((await h.db('reservations').where({ account_id: id })).length, 1);
    const unknown = await post({ ...base, model: 'service-giant' });
    assert.equal([unknown.status, unknown.body.error.code], [404, 'model_not_found']);
  });

  test('401 without a key or with a wrong one; 402 when the balance does not cover the reservation', async () => {
    const h = harness();
    const missing = await h.request('POST', RESPONSES, { json: { model: 'service-mini', input: INPUT } });
    assert.equal([missing.status, missing.body.error.code], [401, 'invalid_api_key']);
    const wrong = await h.v3('sk-wrong', 'POST', RESPONSES, { json: { model: 'service-mini', input: INPUT } });
    assert.equal([wrong.status, wrong.body.error.code], [401, 'invalid_api_key']);
    const { apiKey, id } = await h.provision({ balance: 0.5 });
    const poor = await h.v3(apiKey, 'POST', RESPONSES, { json: { model: 'service-mini', input: INPUT } });
    assert.equal([poor.status, poor.body.error.code], [402, 'insufficient_balance']);
    assert.is((await h.db('reservations').where({ account_id: id })).length, 0);
  });

  test.run();
}
