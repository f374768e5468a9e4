// The OpenAI drop-in chat endpoint with the official `openai` npm SDK (baseURL = <server>/v3), and Scribe as the
// upstream chat engine of Scribe, on SQLite and PostgreSQL. B runs the llama engine on the tiny GGUF; A is configured
// with `SCRIBE_MINI_MODEL=openai:<B>/v3#service-mini` and a key of an account on B, so A's openai-compatible engine
// streams from B's `POST /v3/chat/completions`. Greedy decoding (temperature 0) is deterministic, so A's answers are
// B's, token for token; A reports B's usage and charges its own account for it.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { databaseKinds, startHarness, type Harness, type Provisioned } from '../test-support/harness.ts';
import { expectedPromptTokens, parseEvents, tinyModelPath } from './tiny-model-fixture.ts';

const PRICES = JSON.stringify({ 'service-mini_prompt_tokens': 1000, 'service-mini_completion_tokens': 3000 });
const MESSAGES = [
  { role: 'system' as const, content: 'You are terse.' },
  { role: 'user' as const, content: 'Who signs off the release?' },
];

for (const kind of databaseKinds) {
  const test = suite(`chat: openai SDK and Scribe as upstream (${kind})`);
  let upstream: Harness | undefined;
  let front: Harness | undefined;
  let onB: Provisioned;

  test.before(async () => {
    const env = { SCRIBE_PRICES: PRICES, SCRIBE_RATE_LIMIT_RPS: '1000' };
    upstream = await startHarness(kind, { env: { ...env, SCRIBE_MINI_MODEL: await tinyModelPath() } });
    onB = await upstream.provision({ balance: 1000 });
    front = await startHarness(kind, {
      env: { ...env, SCRIBE_MINI_MODEL: `openai:${upstream.baseUrl}/v3#service-mini`, SCRIBE_CHAT_API_KEY: onB.apiKey },
    });
  });
  test.after(async () => {
    await front?.close();
    await upstream?.close();
  });
  const started = (server: Harness | undefined, name: string): Harness => {
    if (!server) throw new Error(`${name} did not start`);
    return server;
  };
  const A = () => started(front, 'A');
  const B = () => started(upstream, 'B');
  const sdk = (h: Harness, apiKey: string) => new OpenAI({ apiKey, baseURL: `${h.baseUrl}/v3`, maxRetries: 0 });

  test('SDK: models.list, chat.completions.create plain and streamed (deltas = the plain answer, usage chunk)', async () => {
    const client = sdk(B(), onB.apiKey);
    const models = [];
    for await (const model of client.models.list()) models.push(model);
    assert.ok(models.some((m) => m.id === 'service-mini' && (m as { status?: string }).status === 'available'));

    const plain = await client.chat.completions.create({
      model: 'service-mini',
      messages: MESSAGES,
      max_tokens: 9,
      temperature: 0,
    });
    assert.is(plain.object, 'chat.completion');
    assert.is(plain.choices[0]!.finish_reason, 'length');
    assert.is(plain.usage!.completion_tokens, 9);
    assert.is(plain.usage!.prompt_tokens, await expectedPromptTokens(MESSAGES));

    const stream = await client.chat.completions.create({
      model: 'service-mini',
      messages: MESSAGES,
      max_tokens: 9,
      temperature: 0,
      stream: true,
      stream_options: { include_usage: true },
    });
    let content = '';
    let usage;
    let finish;
    for await (const chunk of stream) {
      content += chunk.choices[0]?.delta.content ?? '';
      finish ??= chunk.choices[0]?.finish_reason ?? undefined;
      if (chunk.usage) usage = chunk.usage;
    }
    assert.is(content, plain.choices[0]!.message.content);
    assert.is(finish, 'length');
    assert.equal(usage, plain.usage);
  });

  test('SDK: an error is OpenAI’s envelope (status, code, param)', async () => {
    const client = sdk(B(), onB.apiKey);
    try {
      await client.chat.completions.create({ model: 'service-pro', messages: MESSAGES });
      assert.unreachable('service-pro has no engine');
    } catch (error) {
      assert.instance(error, OpenAI.APIError);
      const apiError = error as InstanceType<typeof OpenAI.APIError>;
      assert.equal([apiError.status, apiError.code, apiError.param], [503, 'engine_unavailable', 'model']);
    }
    // The drop-in body is open: unknown OpenAI fields are accepted and ignored.
    const reply = await B().v3(onB.apiKey, 'POST', '/v3/chat/completions', {
      json: { model: 'service-mini', messages: MESSAGES, max_tokens: 2, top_p: 0.9, seed: 7, user: 'u-1', n: 1 },
    });
    assert.is(reply.status, 200, reply.text);
  });

  test('A’s answer, stream and usage come from B; A charges its own account tokens × price', async () => {
    const onA = await A().provision({ balance: 100 });
    const models = await A().v3(onA.apiKey, 'GET', '/v3/models');
    const mini = models.body.data.find((m: { id: string }) => m.id === 'service-mini');
    assert.equal([mini.status, mini.engine], ['available', 'openai-compatible']);

    const body = { model: 'service-mini', messages: MESSAGES, max_tokens: 7, temperature: 0 };
    const direct = await B().v3(onB.apiKey, 'POST', '/v3/chat/completions/create', { json: body });
    const chained = await A().v3(onA.apiKey, 'POST', '/v3/chat/completions/create', { json: body });
    assert.is(chained.status, 200, chained.text);
    assert.is(chained.body.choices[0].message.content, direct.body.choices[0].message.content);
    assert.is(chained.body.choices[0].finish_reason, 'length');
    assert.equal(chained.body.usage, direct.body.usage);

    const streamed = await A().v3(onA.apiKey, 'POST', '/v3/chat/completions/create', {
      json: { ...body, stream: true, stream_options: { include_usage: true } },
    });
    const events = parseEvents(streamed.text);
    assert.is(events.content, direct.body.choices[0].message.content);
    assert.equal(events.payloads.at(-1).usage, direct.body.usage);
    assert.is(events.payloads.at(-2).choices[0].finish_reason, 'length');

    const ledger = await A().admin('GET', `/admin/accounts/${onA.id}/ledger?limit=100`);
    const charged = ledger.body.data
      .filter((e: { kind: string }) => e.kind === 'capture')
      .map((e: { amount: number }) => e.amount);
    const { prompt_tokens: p, completion_tokens: c } = direct.body.usage;
    assert.equal(charged, [-(p + 3 * c) / 100, -(p + 3 * c) / 100]);
  });

  test('tools through the chain: A passes them to B and answers B’s call (plain and streamed, OpenAI SDK)', async () => {
    const onA = await A().provision({ balance: 1000 });
    const parameters = {
      type: 'object',
      properties: { city: { type: 'string' }, days: { type: 'integer' } },
      required: ['city', 'days'],
      additionalProperties: false,
    };
    const tools = [
      { type: 'function' as const, function: { name: 'get_weather', parameters } },
      { type: 'function' as const, function: { name: 'get_time', parameters: { type: 'object', properties: {} } } },
    ];
    const body = {
      model: 'service-mini',
      messages: MESSAGES,
      tools,
      tool_choice: { type: 'function' as const, function: { name: 'get_weather' } },
      temperature: 0,
      max_tokens: 300,
    };
    const direct = await B().v3(onB.apiKey, 'POST', '/v3/chat/completions', { json: body });
    assert.is(direct.status, 200, direct.text);
    const client = sdk(A(), onA.apiKey);
    const chained = await client.chat.completions.create(body);
    const [choice] = chained.choices;
    assert.equal([choice!.finish_reason, choice!.message.content], ['tool_calls', null]);
    const call = choice!.message.tool_calls![0]! as { id: string; function: { name: string; arguments: string } };
    // Greedy decoding: B's call, made again for A; A gives it an id of its own.
    assert.equal(call.function, direct.body.choices[0].message.tool_calls[0].function);
    assert.is(typeof (JSON.parse(call.function.arguments) as { city: unknown }).city, 'string');
    assert.match(call.id, /^call_/);
    assert.equal(chained.usage, direct.body.usage);

    const stream = await client.chat.completions.create({ ...body, stream: true });
    let name = '';
    let args = '';
    let finish;
    for await (const chunk of stream) {
      for (const piece of chunk.choices[0]?.delta.tool_calls ?? []) {
        name += piece.function?.name ?? '';
        args += piece.function?.arguments ?? '';
      }
      finish ??= chunk.choices[0]?.finish_reason ?? undefined;
    }
    assert.equal([name, args, finish], ['get_weather', call.function.arguments, 'tool_calls']);
  });

  test('json_schema through the chain: the answer validates; an unreachable upstream is 503', async () => {
    // Without max_tokens, A reserves prompt + the reservation cap (4096) × 3 minor.
    const onA = await A().provision({ balance: 1000 });
    const schema = { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] };
    const reply = await A().v3(onA.apiKey, 'POST', '/v3/chat/completions/create', {
      json: {
        model: 'service-mini',
        messages: MESSAGES,
        response_format: { type: 'json_schema', json_schema: { name: 'flag', schema } },
      },
    });
    assert.is(reply.status, 200, reply.text);
    assert.is(typeof JSON.parse(reply.body.choices[0].message.content).ok, 'boolean');

    const lonely = await startHarness(kind, {
      env: { SCRIBE_MINI_MODEL: 'openai:http://127.0.0.1:9/v3#service-mini' },
    });
    try {
      const account = await lonely.provision({ balance: 100 });
      const refused = await lonely.v3(account.apiKey, 'POST', '/v3/chat/completions', {
        json: { model: 'service-mini', messages: MESSAGES },
      });
      assert.equal([refused.status, refused.body.error.code], [503, 'engine_unavailable']);
      const ledger = await lonely.admin('GET', `/admin/accounts/${account.id}/ledger?limit=100`);
      assert.ok(ledger.body.data.every((e: { kind: string }) => e.kind !== 'capture'));
    } finally {
      await lonely.close();
    }
  });

  test('an upstream that fails mid-answer: the deltas so far, an in-band error, [DONE]; the deltas are charged', async () => {
    // The one fake here: a server that streams two deltas and then drops the connection, as a crashed upstream would.
    const crashing = createServer((request, response) => {
      request.resume();
      response.writeHead(200, { 'Content-Type': 'text/event-stream' });
      const chunk = (delta: object) =>
        `data: ${JSON.stringify({ id: 'chatcmpl-x', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: null }] })}\n\n`;
      response.write(
        chunk({ role: 'assistant', content: '' }) + chunk({ content: 'Hello' }) + chunk({ content: ' world' }),
      );
      setTimeout(() => response.socket?.destroy(), 50);
    });
    await new Promise<void>((resolve) => crashing.listen(0, '127.0.0.1', resolve));
    const { port } = crashing.address() as AddressInfo;
    const front = await startHarness(kind, {
      env: { SCRIBE_PRICES: PRICES, SCRIBE_MINI_MODEL: `openai:http://127.0.0.1:${port}/v1#model` },
    });
    try {
      const account = await front.provision({ balance: 100 });
      const streamed = await front.v3(account.apiKey, 'POST', '/v3/chat/completions/create', {
        json: { model: 'service-mini', messages: MESSAGES, max_tokens: 50, stream: true },
      });
      assert.is(streamed.status, 200);
      const events = parseEvents(streamed.text);
      assert.is(events.content, 'Hello world');
      assert.ok(events.done);
      assert.equal(events.payloads.at(-1).error.code, 'internal_error');
      assert.match(events.payloads.at(-1).error.message, /failed mid-answer/);
      const plain = await front.v3(account.apiKey, 'POST', '/v3/chat/completions/create', {
        json: { model: 'service-mini', messages: MESSAGES, max_tokens: 50 },
      });
      assert.equal([plain.status, plain.body.error.code], [500, 'internal_error']);
      // Each request: the (estimated) prompt + 2 deltas × 3 minor; nothing stays reserved.
      const captures = await front.db('ledger_entries').where({ account_id: account.id, kind: 'capture' });
      assert.is(captures.length, 2);
      assert.ok(captures.every((c: { amount_minor: number | string }) => -Number(c.amount_minor) > 6));
      const row = await front.db('accounts').where({ id: account.id }).first();
      assert.is(Number(row.reserved_minor), 0);
    } finally {
      await front.close();
      crashing.closeAllConnections();
      await new Promise((resolve) => crashing.close(resolve));
    }
  });

  test.run();
}
