// Chat messages as OpenAI's SDKs send them, on the drop-in endpoint with the llama engine on the tiny GGUF: the
// `developer` role is read as `system`, text parts are joined one per line, `name` is accepted, and tool-call history
// (an assistant's `tool_calls`, `tool` messages) is rendered into the prompt; a part the models cannot take, and a
// tool message answering no call, are 400 naming them.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { useHarness } from '../test-support/harness.ts';
import { expectedPromptTokens, tinyModelPath } from './tiny-model-fixture.ts';

const CHAT = '/v3/chat/completions';
const test = suite('chat: OpenAI message shapes (sqlite)');
const harness = useHarness(test, 'sqlite', { env: { SCRIBE_MINI_MODEL: await tinyModelPath() } });

const ask = async (messages: unknown[]) => {
  const h = harness();
  const { apiKey } = await h.provision({ balance: 100 });
  return h.v3(apiKey, 'POST', CHAT, { json: { model: 'service-mini', messages, max_tokens: 2, temperature: 0 } });
};

test('developer is system, text parts are joined by newlines, name is accepted: the same prompt tokens', async () => {
  const reply = await ask([
    { role: 'developer', content: [{ type: 'text', text: 'You are terse.' }] },
    {
      role: 'user',
      name: 'alice',
      content: [
        { type: 'text', text: 'Who signs off?' },
        { type: 'text', text: 'Now.' },
      ],
    },
  ]);
  assert.is(reply.status, 200, reply.text);
  const same = [
    { role: 'system' as const, content: 'You are terse.' },
    { role: 'user' as const, content: 'Who signs off?\nNow.' },
  ];
  assert.is(reply.body.usage.prompt_tokens, await expectedPromptTokens(same));
});

test('tool-call history: the assistant’s calls and the tool results are in the prompt', async () => {
  const question = { role: 'user', content: 'What is the weather in Paris?' };
  const call = { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } };
  const withTools = await ask([
    question,
    { role: 'assistant', content: null, tool_calls: [call] },
    { role: 'tool', tool_call_id: 'call_1', content: '{"celsius":21}' },
  ]);
  assert.is(withTools.status, 200, withTools.text);
  const without = await ask([question]);
  // The call's name, its arguments and its result are rendered by the chat template: the prompt is longer.
  assert.ok(withTools.body.usage.prompt_tokens > without.body.usage.prompt_tokens + 8, withTools.text);
});

test('an image or audio part is 400 naming its type; what the contract cannot state is read leniently', async () => {
  const image = await ask([
    { role: 'user', content: 'Describe the picture.' },
    { role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://example.org/a.png' } }] },
  ]);
  // Validation names the part's type (not the text a text part would have needed).
  assert.is(image.status, 400, image.text);
  assert.is(image.body.error.param, 'messages.1.content.0.type');
  const audio = await ask([
    { role: 'user', content: [{ type: 'input_audio', input_audio: { data: '', format: 'wav' } }] },
  ]);
  assert.is(audio.status, 400, audio.text);
  assert.is(audio.body.error.param, 'messages.0.content.0.type');

  // A tool result no earlier call made (or with no id) is read as a user message stating it: its text is in the prompt.
  const orphan = await ask([
    { role: 'user', content: 'Hi' },
    { role: 'tool', tool_call_id: 'call_9', content: 'the result is twenty-one degrees' },
  ]);
  assert.is(orphan.status, 200, orphan.text);
  const plain = await ask([{ role: 'user', content: 'Hi' }]);
  assert.ok(orphan.body.usage.prompt_tokens > plain.body.usage.prompt_tokens + 4, orphan.text);
  const anonymous = await ask([{ role: 'tool', content: '1' }]);
  assert.is(anonymous.status, 200, anonymous.text);
  // No content is empty text.
  const empty = await ask([{ role: 'user' }]);
  assert.is(empty.status, 200, empty.text);
});

test.run();
