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
import { catalogEntry, loadFingerprintSources, mutantFingerprint } from './fingerprint.ts';
import { mergeResults, pooled, selectMutants, staleMutants, targetedArgs } from './run-mutants.ts';

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

test('every mutant names its own suite arguments, so one mutant’s run stays short wherever it runs', () => {
  assert.equal(
    MUTANTS.filter((m) => !m.args?.length).map((m) => m.name),
    [],
  );
});

test('a fingerprint changes with the mutant, its catalog entry, its rules’ ledger entries and their checks’ source', () => {
  const rules = new Map(ledger.map((rule) => [rule.id, rule]));
  const sources = loadFingerprintSources();
  const first = MUTANTS[0]!;
  const print = mutantFingerprint(first, rules, sources);
  assert.is(mutantFingerprint(first, rules, sources), print, 'the same inputs give the same fingerprint');
  assert.ok(catalogEntry(first, sources.catalog).length > first.name.length, 'its catalog entry is found');
  assert.is.not(mutantFingerprint({ ...first, args: ['--phases', 'sse'] }, rules, sources), print);
  const rule = rules.get(first.rules[0]!)!;
  const edited = new Map(rules).set(rule.id, { ...rule, quote: `${rule.quote}.` });
  assert.is.not(mutantFingerprint(first, edited, sources), print);
  const check = rule.checks[0]!;
  const changedCheck = { ...sources, check: (name: string) => sources.check(name) + (name === check ? '\n' : '') };
  assert.is.not(mutantFingerprint(first, rules, changedCheck), print);
  const changedEntry = {
    ...sources,
    catalog: sources.catalog.map((text) => text.replace(`'${first.name}',`, `'${first.name}',\n  'x',`)),
  };
  assert.is.not(mutantFingerprint(first, rules, changedEntry), print);
});

test('a result is stale without a record, or when its fingerprint is not the catalog’s', () => {
  const catalog = [mutant('one', ['a']), mutant('two', ['a']), mutant('three', ['a'])];
  const prints = new Map([
    ['one', 'f1'],
    ['two', 'f2'],
    ['three', 'f3'],
  ]);
  const result = (name: string, fingerprint?: string): MutantResult => ({
    name,
    category: 'x',
    rules: ['a'],
    killed: true,
    by: ['c'],
    seconds: 1,
    fingerprint,
  });
  assert.equal([...staleMutants(catalog, [result('one', 'f1'), result('two', 'old')], prints)], ['two', 'three']);
});

test('the pool runs every item once, no more at a time than it has workers, and keeps their order', async () => {
  let running = 0;
  let most = 0;
  const out = await pooled([5, 1, 3, 2, 4], ['w1', 'w2'], async (item, index, worker) => {
    most = Math.max(most, ++running);
    await new Promise((resolve) => setTimeout(resolve, item * 5));
    running--;
    return `${index}:${item}:${worker.length}`;
  });
  assert.is(most, 2);
  assert.equal(out, ['0:5:2', '1:1:2', '2:3:2', '3:2:2', '4:4:2']);
});

test.run();
