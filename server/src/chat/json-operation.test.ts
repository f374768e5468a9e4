// POST /v3/chat/completions/complete, the whole form of chat create as an operation of its own (its only answer is
// `application/json`, so generators type it as a ChatCompletion): the same answer as create without `stream` on the
// real llama engine with the generated tiny model, charged the same way; `stream: true` is refused; errors are those
// of create.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { useHarness, type Harness } from '../test-support/harness.ts';
import { tinyModelPath } from './tiny-model-fixture.ts';

const PRICES = JSON.stringify({ 'service-mini_prompt_tokens': 1000, 'service-mini_completion_tokens': 3000 });
const COMPLETE = '/v3/chat/completions/complete';
const body = {
  model: 'service-mini' as const,
  messages: [{ role: 'user' as const, content: 'Summarise the meeting in one sentence.' }],
  max_tokens: 12,
  temperature: 0,
};

const test = suite('chat v3 whole-answer operation (sqlite)');
const harness = useHarness(test, 'sqlite', {
  env: { SCRIBE_MINI_MODEL: await tinyModelPath(), SCRIBE_PRICES: PRICES },
});

async function balanceMinor(h: Harness, accountId: string): Promise<number> {
  return Number((await h.db('accounts').where({ id: accountId }).first()).balance_minor);
}

test('the same answer as create without stream, and the same charge', async () => {
  const h = harness();
  const { apiKey, id } = await h.provision({ balance: 100 });
  const viaCreate = await h.v3(apiKey, 'POST', '/v3/chat/completions/create', { json: body });
  const before = await balanceMinor(h, id);
  const whole = await h.v3(apiKey, 'POST', COMPLETE, { json: body });
  assert.is(whole.status, 200, whole.text);
  assert.match(whole.headers.get('content-type') ?? '', /^application\/json/);
  assert.is(whole.body.object, 'chat.completion');
  // Greedy decoding is deterministic: same text, same finish, same usage; only ids and times differ.
  assert.equal(whole.body.choices, viaCreate.body.choices);
  assert.equal(whole.body.usage, viaCreate.body.usage);
  const usage = whole.body.usage;
  assert.is(before - (await balanceMinor(h, id)), usage.prompt_tokens + 3 * usage.completion_tokens);
  const explicit = await h.v3(apiKey, 'POST', COMPLETE, { json: { ...body, stream: false } });
  assert.equal(explicit.body.choices, viaCreate.body.choices);
});

test('stream: true is 400 invalid_parameter; other errors are those of create', async () => {
  const h = harness();
  const { apiKey } = await h.provision({ balance: 100 });
  const contradiction = await h.v3(apiKey, 'POST', COMPLETE, { json: { ...body, stream: true } });
  assert.equal(
    [contradiction.status, contradiction.body.error.code, contradiction.body.error.param],
    [400, 'invalid_parameter', 'stream'],
  );
  const invalid = { ...body, temperature: 3 };
  const fromComplete = await h.v3(apiKey, 'POST', COMPLETE, { json: invalid });
  const fromCreate = await h.v3(apiKey, 'POST', '/v3/chat/completions/create', { json: invalid });
  assert.is(fromComplete.status, 400);
  assert.equal(fromComplete.body, fromCreate.body);
  const unknownModel = await h.v3(apiKey, 'POST', COMPLETE, { json: { ...body, model: 'service-max' } });
  assert.equal([unknownModel.status, unknownModel.body.error.code], [404, 'model_not_found']);
});

test.run();
