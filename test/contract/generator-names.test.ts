// No schema or operation of the contract is named like a client generator's own runtime symbol (the rule that
// `npm run lint:spec` applies), and the rule does refuse such names, in any casing a generator would PascalCase.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { clashes, contractNames } from '../../scripts/generator-reserved-names.mjs';

test('the contract has no schema name or operation id that a generator reserves', () => {
  const names = contractNames();
  assert.ok(names.schemaNames.includes('ChatResponseFormat'));
  assert.ok(names.operationIds.includes('listModels'));
  assert.equal(clashes(names), []);
});

test('reserved names are refused whatever their casing, ordinary ones are not', () => {
  const problems = clashes({
    schemaNames: ['ResponseFormat', 'response_format', 'Options', 'RequestInit', 'ChatResponseFormat', 'ErrorObject'],
    operationIds: ['createClient', 'listModels'],
  });
  assert.equal(problems.length, 5);
  assert.match(problems[0]!, /schema ResponseFormat .*swagger-typescript-api/);
  assert.match(problems[2]!, /schema Options .*hey-api/);
  assert.match(problems[4]!, /operationId createClient/);
});

test.run();
