// The answer check of `response_format.json_schema`: the schema's `$schema` chooses the dialect it is read in
// (2020-12 by default, 2019-09, draft-07 as zod writes it), so a keyword whose meaning changed between drafts is read
// as its author meant; a dialect none of these is 400 naming it.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { ChatResponseFormat } from '../../../generated/client/types.gen.ts';
import { ApiError } from '../http/api-error.ts';
import { answerFormatOf } from './json-answer.ts';

const test = suite('chat: JSON Schema dialects of response_format');

const checkOf = (schema: object) =>
  answerFormatOf({ type: 'json_schema', json_schema: { name: 'answer', schema } } as ChatResponseFormat).check;

const refuses = (check: (content: string) => void, content: string) => {
  try {
    check(content);
    return false;
  } catch {
    return true;
  }
};

test('draft-07 as zod writes it ($schema with #): array-form items is a tuple, additionalItems closes it', () => {
  const check = checkOf({
    $schema: 'http://json-schema.org/draft-07/schema#',
    type: 'object',
    properties: { pair: { type: 'array', items: [{ type: 'string' }, { type: 'number' }], additionalItems: false } },
    required: ['pair'],
    additionalProperties: false,
  });
  check('{"pair":["a",1]}');
  assert.ok(refuses(check, '{"pair":["a",1,2]}'), 'a third item is refused in draft-07');
  assert.ok(refuses(check, '{"pair":[1,"a"]}'), 'the items are checked by position');
});

test('2019-09: $recursiveRef is understood; 2020-12 is the default (prefixItems)', () => {
  const tree = checkOf({
    $schema: 'https://json-schema.org/draft/2019-09/schema',
    $recursiveAnchor: true,
    type: 'object',
    properties: { children: { type: 'array', items: { $recursiveRef: '#' } } },
    additionalProperties: false,
  });
  tree('{"children":[{"children":[]}]}');
  assert.ok(refuses(tree, '{"children":[{"other":1}]}'));
  const tuple = checkOf({ type: 'array', prefixItems: [{ type: 'string' }], items: false });
  tuple('["a"]');
  assert.ok(refuses(tuple, '["a","b"]'));
});

test('an unknown dialect is 400 invalid_parameter naming it; the same $id twice compiles twice', () => {
  try {
    checkOf({ $schema: 'http://json-schema.org/draft-04/schema#', type: 'object' });
    assert.unreachable('draft-04 is not accepted');
  } catch (error) {
    assert.instance(error, ApiError);
    const refusal = error as ApiError;
    assert.equal(
      [refusal.status, refusal.code, refusal.param],
      [400, 'invalid_parameter', 'response_format.json_schema.schema'],
    );
    assert.match(refusal.message, /draft-04.*2020-12 \(the default\), 2019-09 and draft-07/);
  }
  const withId = { $id: 'https://example.org/answer', type: 'object' };
  checkOf({ ...withId })('{}');
  checkOf({ ...withId })('{}');
});

test.run();
