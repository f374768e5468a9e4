// Function calling on POST /v3/chat/completions with the real llama engine on the tiny GGUF (random weights: what
// makes its calls well formed is the grammar of the call), on SQLite and PostgreSQL: `required` and a named function
// answer a call whose arguments parse and satisfy the function's schema, `finish_reason` `tool_calls`, content null;
// `none` answers text; `auto` answers text or calls; the streamed form assembles to a call of the same kind, its first
// piece naming the call; the 400s name their field; the tokens are charged as for any answer; a tool-call history is
// answered.
import { Ajv2020 } from 'ajv/dist/2020.js';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { databaseKinds, useHarness, type Harness } from '../test-support/harness.ts';
import { parseEvents, tinyModelPath } from './tiny-model-fixture.ts';
import { TIME_PARAMETERS as TIME, WEATHER_PARAMETERS as WEATHER } from './tool-schemas-fixture.ts';

const PRICES = JSON.stringify({ 'service-mini_prompt_tokens': 1000, 'service-mini_completion_tokens': 3000 });
const ROUTE = '/v3/chat/completions';
const USER = [{ role: 'user' as const, content: 'What is the weather in Paris, and what time is it there?' }];

const TOOLS = [
  { type: 'function', function: { name: 'get_weather', description: 'The weather of a city.', parameters: WEATHER } },
  { type: 'function', function: { name: 'get_time', description: 'The time in a zone.', parameters: TIME } },
];
const ajv = new Ajv2020({ strict: false });
const validators = { get_weather: ajv.compile(WEATHER), get_time: ajv.compile(TIME) };

/** Asserts a call names an offered function and its arguments parse and satisfy that function's schema. */
function assertValidCall(call: { id: string; type: string; function: { name: string; arguments: string } }) {
  assert.match(call.id, /^call_[A-Za-z0-9]+$/);
  assert.is(call.type, 'function');
  const validate = validators[call.function.name as keyof typeof validators];
  assert.ok(validate, `an offered function: ${call.function.name}`);
  const args = JSON.parse(call.function.arguments) as unknown;
  assert.ok(validate(args), `${call.function.arguments}: ${JSON.stringify(validate.errors)}`);
}

async function balanceMinor(h: Harness, accountId: string): Promise<number> {
  return Number((await h.db('accounts').where({ id: accountId }).first()).balance_minor);
}

/** The tool calls a stream carries, assembled as the OpenAI SDK does (by index, arguments concatenated). */
function assembleCalls(payloads: { choices?: { delta?: { tool_calls?: unknown[] } }[] }[]) {
  const calls: { id: string; type: string; function: { name: string; arguments: string } }[] = [];
  let firstPieces = 0;
  for (const payload of payloads) {
    for (const piece of (payload.choices?.[0]?.delta?.tool_calls ?? []) as {
      index: number;
      id?: string;
      type?: string;
      function?: { name?: string; arguments?: string };
    }[]) {
      if (piece.id !== undefined) {
        firstPieces++;
        assert.is(calls[piece.index], undefined, 'the id comes with the first piece of a call only');
        assert.equal([piece.type, piece.function?.arguments], ['function', '']);
        calls[piece.index] = {
          id: piece.id,
          type: 'function',
          function: { name: piece.function!.name!, arguments: '' },
        };
      } else {
        assert.ok(calls[piece.index], 'a fragment follows its call’s first piece');
        assert.is(piece.function?.name, undefined);
        calls[piece.index]!.function.arguments += piece.function?.arguments ?? '';
      }
    }
  }
  return { calls, firstPieces };
}

for (const kind of databaseKinds) {
  const test = suite(`chat tool calls (${kind})`);
  const harness = useHarness(test, kind, {
    env: { SCRIBE_MINI_MODEL: await tinyModelPath(), SCRIBE_PRICES: PRICES },
  });

  test('required: a call of an offered function, arguments valid against its schema, finish tool_calls, charged', async () => {
    const h = harness();
    const { apiKey, id } = await h.provision({ balance: 100 });
    const before = await balanceMinor(h, id);
    const names = new Set<string>();
    let charged = 0;
    for (let round = 0; round < 4; round++) {
      const reply = await h.v3(apiKey, 'POST', ROUTE, {
        json: {
          model: 'service-mini',
          messages: [{ role: 'user', content: `Weather or time? Round ${round}.` }],
          tools: TOOLS,
          tool_choice: 'required',
          temperature: 1,
          max_tokens: 400,
        },
      });
      assert.is(reply.status, 200, reply.text);
      const [choice] = reply.body.choices;
      assert.is(choice.finish_reason, 'tool_calls');
      assert.is(choice.message.content, null);
      assert.is(choice.message.tool_calls.length, 1);
      assertValidCall(choice.message.tool_calls[0]);
      names.add(choice.message.tool_calls[0].function.name);
      const { prompt_tokens: prompt, completion_tokens: completion } = reply.body.usage;
      assert.ok(completion > 0);
      charged += prompt + 3 * completion;
    }
    assert.is(before - (await balanceMinor(h, id)), charged, 'tokens charged as for any answer');
    console.log(`[${kind}] functions called under required: ${[...names].join(', ')}`);
  });

  test('a named function: that function is called; none: a text answer without calls', async () => {
    const h = harness();
    const { apiKey } = await h.provision({ balance: 100 });
    for (const name of ['get_time', 'get_weather']) {
      const reply = await h.v3(apiKey, 'POST', ROUTE, {
        json: {
          model: 'service-mini',
          messages: USER,
          tools: TOOLS,
          tool_choice: { type: 'function', function: { name } },
          max_tokens: 400,
        },
      });
      assert.is(reply.status, 200, reply.text);
      const [choice] = reply.body.choices;
      assert.equal([choice.finish_reason, choice.message.content], ['tool_calls', null]);
      assert.is(choice.message.tool_calls[0].function.name, name);
      assertValidCall(choice.message.tool_calls[0]);
    }
    const none = await h.v3(apiKey, 'POST', ROUTE, {
      json: { model: 'service-mini', messages: USER, tools: TOOLS, tool_choice: 'none', max_tokens: 12 },
    });
    assert.is(none.status, 200, none.text);
    assert.is(typeof none.body.choices[0].message.content, 'string');
    assert.is(none.body.choices[0].message.tool_calls, undefined);
    assert.ok(['stop', 'length'].includes(none.body.choices[0].finish_reason));
  });

  test('auto: the model chooses; its answer is text, or calls that satisfy their schemas', async () => {
    const h = harness();
    const { apiKey } = await h.provision({ balance: 100 });
    const reply = await h.v3(apiKey, 'POST', ROUTE, {
      json: { model: 'service-mini', messages: USER, tools: TOOLS, max_tokens: 40, parallel_tool_calls: false },
    });
    assert.is(reply.status, 200, reply.text);
    const [choice] = reply.body.choices;
    if (choice.message.tool_calls) {
      assert.is(choice.message.tool_calls.length, 1, 'parallel_tool_calls false: one call');
      choice.message.tool_calls.forEach(assertValidCall);
    } else {
      assert.is(typeof choice.message.content, 'string');
      assert.ok(['stop', 'length'].includes(choice.finish_reason));
    }
    // With a JSON answer format the local model answers in the format (its grammar leaves no room for a call).
    const json = await h.v3(apiKey, 'POST', ROUTE, {
      json: { model: 'service-mini', messages: USER, tools: TOOLS, response_format: { type: 'json_object' } },
    });
    assert.is(json.status, 200, json.text);
    assert.is(json.body.choices[0].finish_reason, 'stop');
    const value = JSON.parse(json.body.choices[0].message.content) as unknown;
    assert.ok(value !== null && typeof value === 'object' && !Array.isArray(value));
  });

  test('streamed: role chunk, the call named in its first piece, argument fragments, finish tool_calls', async () => {
    const h = harness();
    const { apiKey } = await h.provision({ balance: 100 });
    for (const toolChoice of ['required', { type: 'function', function: { name: 'get_weather' } }]) {
      const reply = await h.v3(apiKey, 'POST', ROUTE, {
        json: {
          model: 'service-mini',
          messages: USER,
          tools: TOOLS,
          tool_choice: toolChoice,
          stream: true,
          stream_options: { include_usage: true },
          max_tokens: 400,
        },
      });
      assert.is(reply.status, 200, reply.text);
      const events = parseEvents(reply.text);
      assert.ok(events.done);
      assert.equal(events.payloads[0].choices[0].delta, { role: 'assistant', content: '' });
      assert.is(events.content, '', 'no text besides the call');
      const { calls, firstPieces } = assembleCalls(events.payloads);
      assert.is(firstPieces, 1);
      assert.is(calls.length, 1);
      assertValidCall(calls[0]!);
      if (typeof toolChoice === 'object') assert.is(calls[0]!.function.name, 'get_weather');
      const fragments = events.payloads.filter((p) => p.choices?.[0]?.delta?.tool_calls?.[0]?.id === undefined);
      assert.ok(fragments.length > 2, 'the arguments come in fragments as they are generated');
      const finish = events.payloads.filter((p) => p.choices?.[0]?.finish_reason);
      assert.is(finish.length, 1);
      assert.equal(finish[0].choices[0], { index: 0, delta: {}, finish_reason: 'tool_calls' });
      assert.ok(events.payloads.at(-1).usage.completion_tokens > 0);
    }
  });

  test('a tool-call history with its result is answered (the model continues after the call)', async () => {
    const h = harness();
    const { apiKey } = await h.provision({ balance: 100 });
    const call = await h.v3(apiKey, 'POST', ROUTE, {
      json: { model: 'service-mini', messages: USER, tools: TOOLS, tool_choice: 'required', max_tokens: 400 },
    });
    assert.is(call.status, 200, call.text);
    const message = call.body.choices[0].message;
    const reply = await h.v3(apiKey, 'POST', ROUTE, {
      json: {
        model: 'service-mini',
        messages: [...USER, message, { role: 'tool', tool_call_id: message.tool_calls[0].id, content: '{"ok":true}' }],
        tools: TOOLS,
        tool_choice: 'none',
        max_tokens: 8,
      },
    });
    assert.is(reply.status, 200, reply.text);
    assert.is(typeof reply.body.choices[0].message.content, 'string');
    const without = await h.v3(apiKey, 'POST', ROUTE, {
      json: { model: 'service-mini', messages: USER, tools: TOOLS, tool_choice: 'none', max_tokens: 8 },
    });
    assert.ok(reply.body.usage.prompt_tokens > without.body.usage.prompt_tokens, 'the call and its result are read');
    // The functions are shown to the model whenever it may call them: they count in the prompt.
    assert.ok(call.body.usage.prompt_tokens > without.body.usage.prompt_tokens + 20, 'the tools are in the prompt');
  });

  test('400s name their field: unknown named function, choice without tools, duplicate names, invalid schemas', async () => {
    const h = harness();
    const { apiKey, id } = await h.provision({ balance: 100 });
    const before = await balanceMinor(h, id);
    const refused = async (body: object, param: string, message: RegExp) => {
      const reply = await h.v3(apiKey, 'POST', ROUTE, { json: { model: 'service-mini', messages: USER, ...body } });
      assert.equal([reply.status, reply.body.error.code, reply.body.error.param], [400, 'invalid_parameter', param]);
      assert.match(reply.body.error.message, message);
    };
    await refused(
      { tools: TOOLS, tool_choice: { type: 'function', function: { name: 'get_news' } } },
      'tool_choice.function.name',
      /"get_news", which is not among the tools \(get_weather, get_time\)/,
    );
    await refused({ tool_choice: 'required' }, 'tool_choice', /needs tools/);
    await refused({ tools: [TOOLS[0], TOOLS[0]] }, 'tools.1.function.name', /repeats the function "get_weather"/);
    await refused(
      { tools: [TOOLS[0], { type: 'function', function: { name: 'bad', parameters: { type: 'city' } } }] },
      'tools.1.function.parameters',
      /is not a valid JSON Schema/,
    );
    await refused(
      {
        tools: [
          {
            type: 'function',
            function: { name: 'old', parameters: { $schema: 'http://json-schema.org/draft-04/schema#' } },
          },
        ],
      },
      'tools.0.function.parameters',
      /names the JSON Schema dialect/,
    );
    // The contract's own validation: a tool that is not a function, a choice that is no choice.
    const invalid = await h.v3(apiKey, 'POST', ROUTE, {
      json: { model: 'service-mini', messages: USER, tools: [{ type: 'retrieval' }] },
    });
    assert.is(invalid.status, 400);
    assert.match(invalid.body.error.param, /^tools/);
    assert.is(await balanceMinor(h, id), before, 'nothing charged for a refused request');
  });

  test.run();
}
