// The reading of a forced call as it is generated: the name goes out once it is whole, the arguments in pieces that
// concatenate to the call's arguments (never the call's own closing brace), however the text is cut into chunks.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { ToolCallPiece } from './engine.ts';
import { chatFunctionsOf, createForcedCallReader, forcedCallSchema, isForcedCall } from './llama-tool-calls.ts';

const test = suite('llama tool calls');

const read = (chunks: string[]) => {
  const pieces: ToolCallPiece[] = [];
  const reader = createForcedCallReader((piece) => pieces.push(piece));
  for (const chunk of chunks) reader.add(chunk);
  return { pieces, call: reader.end() };
};

test('every way of cutting the text gives one named first piece and fragments that make the arguments', () => {
  const text = '{"name": "get_weather", "arguments": {"city": "Pa}}ris", "when": {"day": 2}}}';
  const args = '{"city": "Pa}}ris", "when": {"day": 2}}';
  for (let size = 1; size <= text.length; size++) {
    const chunks = [];
    for (let at = 0; at < text.length; at += size) chunks.push(text.slice(at, at + size));
    const { pieces, call } = read(chunks);
    assert.equal(call, { name: 'get_weather', arguments: args }, `chunks of ${size}`);
    assert.equal(pieces[0], { index: 0, name: 'get_weather', arguments: '' });
    assert.ok(pieces.slice(1).every((piece) => piece.name === undefined && piece.arguments.length > 0));
    assert.is(pieces.map((piece) => piece.arguments).join(''), args, `chunks of ${size}`);
  }
});

test('a call cut before its name is whole gives nothing; cut in its arguments, what was made', () => {
  assert.equal(read(['{"name": "get_wea']), { pieces: [], call: undefined });
  const cut = read(['{"name":"f","arguments":{"a":[1,']);
  assert.equal(cut.call, { name: 'f', arguments: '{"a":[1,' });
  assert.is(cut.pieces.map((piece) => piece.arguments).join(''), '{"a":[1,');
});

test('the schema of one call: the named function only, or one of all; none and auto are not forced', () => {
  const functions = [
    { name: 'a', parameters: { type: 'object', properties: { x: { type: 'string' } } } },
    { name: 'b', parameters: { type: 'object', properties: {} } },
  ];
  const named = forcedCallSchema({ functions, choice: { name: 'b' }, parallel: true });
  assert.equal(named, {
    type: 'object',
    properties: { name: { const: 'b' }, arguments: { type: 'object', properties: {} } },
    required: ['name', 'arguments'],
    additionalProperties: false,
  });
  const any = forcedCallSchema({ functions, choice: 'required', parallel: true }) as { oneOf: object[] };
  assert.is(any.oneOf.length, 2);
  assert.ok(isForcedCall({ functions, choice: 'required', parallel: true }));
  assert.not.ok(isForcedCall({ functions, choice: 'auto', parallel: true }));
  assert.is(chatFunctionsOf({ functions, choice: 'none', parallel: true }), undefined);
  assert.equal(Object.keys(chatFunctionsOf({ functions, choice: 'auto', parallel: true })!), ['a', 'b']);
});

test.run();
