// POST /v3/chat/completions/stream, the streamed form of chat create as an operation of its own (its only answer is
// `text/event-stream`, so generators type the events): the same events as create with `stream: true` on the real
// llama engine with the generated tiny model, charged the same way; `stream: false` is refused by its body schema; errors before the
// stream are the JSON errors of create; and the generated hey-api SDK reads it as a typed event stream.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createClient } from '../../../generated/client/client/index.ts';
import { createStreamedChatCompletion } from '../../../generated/client/sdk.gen.ts';
import type { ChatCompletionChunk, ChatCompletionStreamEvent } from '../../../generated/client/types.gen.ts';
import { useHarness, type Harness } from '../test-support/harness.ts';
import { parseEvents, tinyModelPath } from './tiny-model-fixture.ts';

const PRICES = JSON.stringify({ 'service-mini_prompt_tokens': 1000, 'service-mini_completion_tokens': 3000 });
const STREAM = '/v3/chat/completions/stream';
const body = {
  model: 'service-mini' as const,
  messages: [{ role: 'user' as const, content: 'Summarise the meeting in one sentence.' }],
  max_tokens: 12,
  temperature: 0,
};

const test = suite('chat v3 streamed operation (sqlite)');
const harness = useHarness(test, 'sqlite', {
  env: { SCRIBE_MINI_MODEL: await tinyModelPath(), SCRIBE_PRICES: PRICES },
});

async function balanceMinor(h: Harness, accountId: string): Promise<number> {
  return Number((await h.db('accounts').where({ id: accountId }).first()).balance_minor);
}

test('the same events as create with stream: true, and the same charge', async () => {
  const h = harness();
  const { apiKey, id } = await h.provision({ balance: 100 });
  const json = { ...body, stream_options: { include_usage: true } };
  const viaCreate = await h.v3(apiKey, 'POST', '/v3/chat/completions/create', { json: { ...json, stream: true } });
  const before = await balanceMinor(h, id);
  const viaStream = await h.v3(apiKey, 'POST', STREAM, { json });
  assert.is(viaStream.status, 200, viaStream.text);
  assert.match(viaStream.headers.get('content-type') ?? '', /^text\/event-stream/);
  const created = parseEvents(viaCreate.text);
  const streamed = parseEvents(viaStream.text);
  assert.ok(streamed.done);
  // Greedy decoding is deterministic: same text, same finish, same usage; only ids and times differ.
  assert.is(streamed.content, created.content);
  assert.equal(streamed.payloads.at(-2).choices, created.payloads.at(-2).choices);
  const usage = streamed.payloads.at(-1).usage;
  assert.equal(usage, created.payloads.at(-1).usage);
  assert.is(before - (await balanceMinor(h, id)), usage.prompt_tokens + 3 * usage.completion_tokens);
  // `stream: true` is accepted as well.
  const explicit = await h.v3(apiKey, 'POST', STREAM, { json: { ...body, stream: true } });
  assert.is(parseEvents(explicit.text).content, created.content);
});

test('stream: false is 400 invalid_parameter; errors before the stream are JSON, as on create', async () => {
  const h = harness();
  const { apiKey } = await h.provision({ balance: 100 });
  const contradiction = await h.v3(apiKey, 'POST', STREAM, { json: { ...body, stream: false } });
  assert.equal(
    [contradiction.status, contradiction.body.error.code, contradiction.body.error.param],
    [400, 'invalid_parameter', 'stream'],
  );
  // The body schema limits `stream` to true: validation tells it like any value outside an enum.
  assert.match(contradiction.body.error.message, /^stream must be equal to/);
  const invalid = { ...body, temperature: 3 };
  const fromStream = await h.v3(apiKey, 'POST', STREAM, { json: invalid });
  const fromCreate = await h.v3(apiKey, 'POST', '/v3/chat/completions/create', { json: { ...invalid, stream: true } });
  assert.is(fromStream.status, 400);
  assert.equal(fromStream.body, fromCreate.body);
  const unknownModel = await h.v3(apiKey, 'POST', STREAM, { json: { ...body, model: 'service-max' } });
  assert.equal([unknownModel.status, unknownModel.body.error.code], [404, 'model_not_found']);
});

test('the generated SDK reads the operation as a typed stream of events', async () => {
  const h = harness();
  const { apiKey } = await h.provision({ balance: 100 });
  const client = createClient({ baseUrl: h.baseUrl, auth: () => apiKey });
  const { stream } = await createStreamedChatCompletion({ client, body, sseMaxRetryAttempts: 1 });
  const events: ChatCompletionStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  assert.is(events.at(-1), '[DONE]');
  const isChunk = (e: ChatCompletionStreamEvent): e is ChatCompletionChunk =>
    typeof e === 'object' && 'object' in e && e.object === 'chat.completion.chunk';
  const chunks = events.filter(isChunk);
  assert.ok(chunks.length >= 3, JSON.stringify(events));
  const text = chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
  const plain = await h.v3(apiKey, 'POST', '/v3/chat/completions/create', { json: body });
  assert.is(text, plain.body.choices[0].message.content);
});

test.run();
