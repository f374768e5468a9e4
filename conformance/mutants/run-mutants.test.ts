// The mutant runner's choices: which mutants a filter keeps, what a mutant without its own arguments runs (the
// cheapest phase the baseline's rule trace saw provoke each of its rules, and the operations of their scopes), and
// how a partial run's results merge into the recorded ones; and the catalog against the ledger: every mutant names
// rules the ledger has, with checks that could kill it, and the recorded results are of the catalog as it is.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { RuleResult } from '../core/rule-trace.ts';
import { loadLedger, loadMutantResults, type MutantResult } from '../core/rules.ts';
import { MUTANTS } from './catalog/index.ts';
import type { Mutant } from './proxy.ts';
import { mergeResults, selectMutants, targetedArgs } from './run-mutants.ts';

const test = suite('mutant runner');
const mutant = (name: string, rules: string[], args?: string[]): Mutant => ({ name, category: 'x', rules, args });
const traced = (id: string, phases: string[], operations: string[], verdict: RuleResult['verdict'] = 'passed') =>
  ({ id, checks: ['c'], verdict, cases: 1, failed: 0, operations, phases }) satisfies RuleResult;

const ledger = loadLedger().rules;
const results = loadMutantResults();

test('every mutant of the catalog names rules of the ledger, each rule it names has checks, names are unique', () => {
  const ids = new Map(ledger.map((rule) => [rule.id, rule]));
  assert.is(new Set(MUTANTS.map((m) => m.name)).size, MUTANTS.length);
  for (const mutant of MUTANTS) {
    assert.ok(mutant.rules.length > 0, `${mutant.name} names no rule`);
    for (const id of mutant.rules) {
      assert.ok(ids.has(id), `${mutant.name}: no rule ${id}`);
      assert.ok(ids.get(id)!.checks.length > 0, `${mutant.name}: rule ${id} names no check that could kill it`);
    }
  }
});

test('the recorded mutant results are of the catalog as it is: every result a mutant of it, breaking the same rules', () => {
  const byName = new Map(MUTANTS.map((m) => [m.name, m]));
  for (const result of results.mutants) {
    const mutant = byName.get(result.name);
    assert.ok(mutant, `results.json has ${result.name}, which the catalog no longer has`);
    assert.equal(result.rules, mutant.rules, `${result.name}: the catalog now says it breaks other rules`);
  }
});

test('a mutant with its own arguments runs them; one without runs what the trace ties to its rules', () => {
  assert.equal(targetedArgs(mutant('own', ['a'], ['--phases', 'sse']), []), ['--phases', 'sse']);
  const trace = [
    traced('a', ['stateful', 'examples', 'coverage'], ['listModels']),
    traced('b', ['stateful'], ['createStreamSession', 'calculatePrice']),
    traced('c', ['examples'], ['getHealth'], 'not_run'),
  ];
  assert.equal(targetedArgs(mutant('traced', ['a', 'b', 'c']), trace), [
    '--phases',
    'examples,stateful',
    '--include',
    'listModels,createStreamSession,calculatePrice',
  ]);
  assert.equal(targetedArgs(mutant('untraced', ['z']), trace), []);
});

test('filters keep the mutants a word of whose name or whose rule is asked for', () => {
  const catalog = [mutant('SSE without [DONE]', ['chat.done']), mutant('a 410', ['webhooks.410'])];
  assert.is(selectMutants(catalog, [], []).length, 2);
  assert.equal(
    selectMutants(catalog, ['SSE'], []).map((m) => m.name),
    ['SSE without [DONE]'],
  );
  assert.equal(
    selectMutants(catalog, [], ['webhooks.410']).map((m) => m.name),
    ['a 410'],
  );
});

test('a partial run replaces what it measured, keeps the rest, and drops mutants gone from the catalog', () => {
  const result = (name: string, killed: boolean): MutantResult => ({
    name,
    category: 'x',
    rules: ['a'],
    killed,
    by: killed ? ['c'] : [],
    seconds: 1,
  });
  const catalog = [mutant('one', ['a']), mutant('two', ['a'])];
  const merged = mergeResults(
    [result('one', false), result('two', true), result('gone', true)],
    [result('one', true)],
    catalog,
  );
  assert.equal(
    merged.map((r) => [r.name, r.killed]),
    [
      ['one', true],
      ['two', true],
    ],
  );
});

test.run();
