// The llama engine's queue shared between accounts, through the API with the tiny GGUF (one generation at a time):
// account A's requests beyond its share of the queue are 429 `too_many_concurrent_jobs` with Retry-After (not 503,
// not 500), and account B's request, sent after A's backlog, is answered before the rest of that backlog (the
// accounts take turns for the freed slot). One database kind: nothing here depends on it.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { useHarness } from '../../test-support/harness.ts';
import { tinyModelPath } from '../tiny-model-fixture.ts';

const CREATE = '/v3/chat/completions/create';
const test = suite('chat queue between accounts (sqlite)');
const modelPath = await tinyModelPath();
const harness = useHarness(test, 'sqlite', {
  env: {
    SCRIBE_MINI_MODEL: modelPath,
    SCRIBE_CHAT_PARALLEL: '1',
    SCRIBE_CHAT_QUEUE: '8',
    SCRIBE_CHAT_ACCOUNT_QUEUE: '3',
    SCRIBE_RATE_LIMIT_RPS: '1000',
  },
});

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('A’s backlog over its share is 429; B’s request is served before the rest of A’s backlog', async () => {
  const h = harness();
  const a = await h.provision({ balance: 1000 });
  const b = await h.provision({ balance: 1000 });
  // Greedy answers of 900 tokens (the tiny model's context is 1024): long enough that the requests overlap even on an
  // idle machine, where the tiny model writes 300 tokens in a fraction of a second.
  const long = {
    model: 'service-mini',
    messages: [{ role: 'user', content: 'Summarise the meeting in one sentence.' }],
    temperature: 0,
    max_tokens: 900,
  };
  const finished: string[] = [];
  const send = (name: string, apiKey: string) =>
    h.v3(apiKey, 'POST', CREATE, { json: long }).then((reply) => {
      finished.push(name);
      return reply;
    });

  // A: one running and three waiting (its share), sent one after the other so their order is known.
  const aReplies = [];
  for (const name of ['a1', 'a2', 'a3', 'a4']) {
    aReplies.push(send(name, a.apiKey));
    await pause(15);
  }
  // Plain and streamed alike: the refusal is the HTTP answer, not an event inside a stream.
  for (const json of [long, { ...long, stream: true }]) {
    const over = await h.v3(a.apiKey, 'POST', CREATE, { json });
    assert.is(over.status, 429, over.text);
    assert.is(over.body.error.code, 'too_many_concurrent_jobs');
    assert.ok(Number(over.headers.get('retry-after')) >= 1, `Retry-After ${over.headers.get('retry-after')}`);
  }

  const bReply = await send('b1', b.apiKey);
  assert.is(bReply.status, 200, bReply.text);
  for (const reply of await Promise.all(aReplies)) assert.is(reply.status, 200, reply.text);
  // B waited for the running generation and A's next one (A was ahead of B in the turns), not for all of A's.
  assert.ok(finished.indexOf('b1') < finished.indexOf('a4'), `order ${finished.join(', ')}`);
  assert.ok(finished.indexOf('b1') <= 2, `order ${finished.join(', ')}`);
});

test.run();
