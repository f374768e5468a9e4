// Function tools on POST /v3/responses with the real llama engine on the tiny GGUF (random weights: what makes its
// calls well formed is the grammar of the call), on SQLite and PostgreSQL: `required` and a named function answer
// `function_call` items whose arguments parse and satisfy the function's schema (no message item, the settings
// echoed); the streamed form's events in the Responses API's order (the item added with its name, argument fragments
// that concatenate to the arguments, the arguments and the item done, the response completed with the same item); a
// round trip (the call sent back with its `function_call_output`) is answered and read; the 400s name the request's
// own fields (`tools.<i>.parameters`, `tool_choice.name`, `tools.<i>.name`), nothing charged for them.
import { Ajv2020 } from 'ajv/dist/2020.js';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { databaseKinds, useHarness } from '../../test-support/harness.ts';
import { tinyModelPath } from '../tiny-model-fixture.ts';
import { TIME_PARAMETERS as TIME, WEATHER_PARAMETERS as WEATHER } from '../tool-schemas-fixture.ts';
import { balanceMinor, namedEvents } from './responses-fixture.ts';
import type { OpenAiResponseFunctionCall } from '../../../../generated/client/types.gen.ts';

const PRICES = JSON.stringify({ 'service-mini_prompt_tokens': 1000, 'service-mini_completion_tokens': 3000 });
const RESPONSES = '/v3/responses';
const INPUT = 'What is the weather in Paris, and what time is it there?';

const TOOLS = [
  { type: 'function', name: 'get_weather', description: 'The weather of a city.', parameters: WEATHER, strict: true },
  { type: 'function', name: 'get_time', description: 'The time in a zone.', parameters: TIME },
];
const ajv = new Ajv2020({ strict: false });
const validators = { get_weather: ajv.compile(WEATHER), get_time: ajv.compile(TIME) };

/** Asserts an item is a finished call of an offered function whose arguments parse and satisfy its schema. */
function assertValidCall(item: OpenAiResponseFunctionCall) {
  assert.is(item.type, 'function_call');
  assert.match(item.id, /^fc_[0-9a-f]{32}$/);
  assert.match(item.call_id, /^call_[0-9a-f]{24}$/);
  assert.is(item.status, 'completed');
  const validate = validators[item.name as keyof typeof validators];
  assert.ok(validate, `an offered function: ${item.name}`);
  const args = JSON.parse(item.arguments) as unknown;
  assert.ok(validate(args), `${item.arguments}: ${JSON.stringify(validate.errors)}`);
}

for (const kind of databaseKinds) {
  const test = suite(`responses function tools (${kind})`);
  const harness = useHarness(test, kind, {
    env: { SCRIBE_MINI_MODEL: await tinyModelPath(), SCRIBE_PRICES: PRICES, SCRIBE_RATE_LIMIT_RPS: '1000' },
  });

  test('required and a named function: function_call items valid against their schema, settings echoed, charged', async () => {
    const h = harness();
    const { apiKey, id } = await h.provision({ balance: 100 });
    const before = await balanceMinor(h, id);
    let charged = 0;
    for (const toolChoice of ['required', { type: 'function', name: 'get_time' }] as const) {
      const reply = await h.v3(apiKey, 'POST', RESPONSES, {
        json: { model: 'service-mini', input: INPUT, tools: TOOLS, tool_choice: toolChoice, max_output_tokens: 400 },
      });
      assert.is(reply.status, 200, reply.text);
      const response = reply.body;
      assert.equal([response.status, response.incomplete_details], ['completed', null]);
      // An answer that only calls a function has no message item.
      assert.is(response.output.length, 1, JSON.stringify(response.output));
      assertValidCall(response.output[0]);
      if (typeof toolChoice === 'object') assert.is(response.output[0].name, 'get_time');
      assert.equal([response.tools, response.tool_choice, response.parallel_tool_calls], [TOOLS, toolChoice, true]);
      assert.ok(response.usage.output_tokens > 0);
      charged += response.usage.input_tokens + 3 * response.usage.output_tokens;
    }
    assert.is(before - (await balanceMinor(h, id)), charged, 'tokens charged as for any answer');
  });

  test('none: a text answer without calls; auto: text or valid calls', async () => {
    const h = harness();
    const { apiKey } = await h.provision({ balance: 100 });
    const none = await h.v3(apiKey, 'POST', RESPONSES, {
      json: { model: 'service-mini', input: INPUT, tools: TOOLS, tool_choice: 'none', max_output_tokens: 8 },
    });
    assert.is(none.status, 200, none.text);
    assert.equal(
      none.body.output.map((item: { type: string }) => item.type),
      ['message'],
    );
    const auto = await h.v3(apiKey, 'POST', RESPONSES, {
      json: { model: 'service-mini', input: INPUT, tools: TOOLS, parallel_tool_calls: false, max_output_tokens: 40 },
    });
    assert.is(auto.status, 200, auto.text);
    assert.is(auto.body.tool_choice, 'auto');
    assert.is(auto.body.parallel_tool_calls, false);
    const calls = auto.body.output.filter((item: { type: string }) => item.type === 'function_call');
    assert.ok(calls.length <= 1, 'parallel_tool_calls false: one call at most');
    if (calls.length && auto.body.status === 'completed') calls.forEach(assertValidCall);
  });

  test('streamed: the function_call item added, argument deltas, arguments done, item done, completed', async () => {
    const h = harness();
    const { apiKey } = await h.provision({ balance: 100 });
    for (const toolChoice of ['required', { type: 'function', name: 'get_weather' }] as const) {
      const reply = await h.v3(apiKey, 'POST', RESPONSES, {
        json: {
          model: 'service-mini',
          input: INPUT,
          tools: TOOLS,
          tool_choice: toolChoice,
          stream: true,
          max_output_tokens: 400,
        },
      });
      assert.is(reply.status, 200, reply.text);
      const events = namedEvents(reply.text);
      assert.equal(
        events.map((event) => event.payload.sequence_number),
        events.map((_, index) => index),
      );
      for (const event of events) assert.is(event.name, event.payload.type);
      const names = events.map((event) => event.name);
      const deltas = names.filter((name) => name === 'response.function_call_arguments.delta').length;
      assert.ok(deltas > 2, 'the arguments come in fragments as they are generated');
      assert.equal(names, [
        'response.created',
        'response.in_progress',
        'response.output_item.added',
        ...Array<string>(deltas).fill('response.function_call_arguments.delta'),
        'response.function_call_arguments.done',
        'response.output_item.done',
        'response.completed',
      ]);
      const added = events[2]!.payload;
      assert.is(added.output_index, 0);
      assert.equal(
        { ...added.item, id: 'x', call_id: 'y' },
        {
          type: 'function_call',
          id: 'x',
          call_id: 'y',
          name: added.item.name,
          arguments: '',
          status: 'in_progress',
        },
      );
      if (typeof toolChoice === 'object') assert.is(added.item.name, 'get_weather');
      const fragments = events.filter((event) => event.name === 'response.function_call_arguments.delta');
      assert.ok(
        fragments.every((event) => event.payload.item_id === added.item.id && event.payload.output_index === 0),
      );
      const args = fragments.map((event) => event.payload.delta).join('');
      const done = events.at(-3)!.payload;
      assert.equal([done.item_id, done.name, done.arguments], [added.item.id, added.item.name, args]);
      const item = events.at(-2)!.payload.item;
      assert.equal(item, { ...added.item, arguments: args, status: 'completed' });
      assertValidCall(item);
      const response = events.at(-1)!.payload.response;
      assert.equal(response.output, [item]);
      assert.ok(response.usage.output_tokens > 0);
    }
  });

  test('a round trip: the call sent back with its function_call_output is answered, and read', async () => {
    const h = harness();
    const { apiKey } = await h.provision({ balance: 100 });
    const first = await h.v3(apiKey, 'POST', RESPONSES, {
      json: { model: 'service-mini', input: INPUT, tools: TOOLS, tool_choice: 'required', max_output_tokens: 400 },
    });
    assert.is(first.status, 200, first.text);
    const [call] = first.body.output;
    assertValidCall(call);
    const history = [{ role: 'user', content: INPUT }, call];
    const result = { type: 'function_call_output', call_id: call.call_id, output: '{"temperature":21}' };
    const reply = await h.v3(apiKey, 'POST', RESPONSES, {
      json: {
        model: 'service-mini',
        input: [...history, result],
        tools: TOOLS,
        tool_choice: 'none',
        max_output_tokens: 8,
      },
    });
    assert.is(reply.status, 200, reply.text);
    assert.equal(
      reply.body.output.map((item: { type: string }) => item.type),
      ['message'],
    );
    assert.is(typeof reply.body.output[0].content[0].text, 'string');
    // The same history through chat's tool messages is the same prompt: the items were read as its tool-call history.
    const chat = await h.v3(apiKey, 'POST', '/v3/chat/completions', {
      json: {
        model: 'service-mini',
        messages: [
          { role: 'user', content: INPUT },
          {
            role: 'assistant',
            content: null,
            tool_calls: [
              { id: call.call_id, type: 'function', function: { name: call.name, arguments: call.arguments } },
            ],
          },
          { role: 'tool', tool_call_id: call.call_id, content: '{"temperature":21}' },
        ],
        tools: TOOLS.map(({ type, ...definition }) => ({ type, function: definition })),
        tool_choice: 'none',
        max_tokens: 8,
      },
    });
    assert.is(chat.status, 200, chat.text);
    assert.is(reply.body.usage.input_tokens, chat.body.usage.prompt_tokens);
    const without = await h.v3(apiKey, 'POST', RESPONSES, {
      json: { model: 'service-mini', input: INPUT, tools: TOOLS, tool_choice: 'none', max_output_tokens: 8 },
    });
    assert.ok(reply.body.usage.input_tokens > without.body.usage.input_tokens, 'the call and its result are read');
    // Text parts as the output, and a result that answers no call in the input: both answered.
    const parts = await h.v3(apiKey, 'POST', RESPONSES, {
      json: {
        model: 'service-mini',
        input: [
          { role: 'user', content: INPUT },
          { type: 'function_call_output', call_id: 'call_unknown', output: [{ type: 'input_text', text: 'sunny' }] },
        ],
        max_output_tokens: 4,
      },
    });
    assert.is(parts.status, 200, parts.text);
  });

  test('400s name the request’s own fields: parameters, a named function not offered, duplicate names', async () => {
    const h = harness();
    const { apiKey, id } = await h.provision({ balance: 100 });
    const before = await balanceMinor(h, id);
    const refused = async (body: object, param: string, message: RegExp) => {
      const reply = await h.v3(apiKey, 'POST', RESPONSES, { json: { model: 'service-mini', input: INPUT, ...body } });
      assert.equal([reply.status, reply.body.error.code, reply.body.error.param], [400, 'invalid_parameter', param]);
      assert.match(reply.body.error.message, message);
    };
    await refused(
      { tools: [TOOLS[0], { type: 'function', name: 'bad', parameters: { type: 'city' } }] },
      'tools.1.parameters',
      /^tools\.1\.parameters is not a valid JSON Schema/,
    );
    await refused(
      { tools: TOOLS, tool_choice: { type: 'function', name: 'get_news' } },
      'tool_choice.name',
      /"get_news", which is not among the tools \(get_weather, get_time\)/,
    );
    await refused(
      { tools: [TOOLS[0], TOOLS[0]] },
      'tools.1.name',
      /^tools\.1\.name repeats the function "get_weather"/,
    );
    await refused({ tool_choice: 'required' }, 'tool_choice', /needs tools/);
    assert.is(await balanceMinor(h, id), before, 'nothing charged for a refused request');
  });

  test.run();
}
