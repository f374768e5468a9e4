// The rule ledger holds: it parses, every rule is encoded, checked or has a reason, its pointers resolve in the
// bundled documents, its checks are registered, its quotes are verbatim, every heading of the interface document with
// text of its own has a rule — and the audit finds each kind of fault in a ledger that has it. A rule counts as
// checked only when a recorded mutant that breaks it was killed by one of its own checks. `--rules` prints the same
// counts as the README states.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import '../checks/index.ts';
import { rulesSummaryLine } from '../report/rules.ts';
import { registeredChecks } from './registry.ts';
import { auditRules, documentSections, readSources, resolvePointer, type AuditInputs } from './rules-audit.ts';
import {
  coverageOf,
  loadLedger,
  loadMutantResults,
  parseLedger,
  provenRules,
  summarize,
  type MutantResults,
} from './rules.ts';
import { NAMED_CASES } from '../cases/named.ts';

const root = new URL('../../', import.meta.url).pathname;
const test = suite('rule ledger');
const json = (path: string) => JSON.parse(readFileSync(`${root}${path}`, 'utf8')) as unknown;
const inputs: AuditInputs = {
  documents: { openapi: json('generated/openapi.json'), asyncapi: json('generated/asyncapi.json') },
  checks: new Set(registeredChecks().map((check) => check.name)),
  sources: readSources(),
};
const ledger = loadLedger();
const results = loadMutantResults();
const proven = provenRules(ledger.rules, results);

test('the quoted sources are verbatim copies of the shared interface document and contract decisions', () => {
  // The package carries its own copies. The originals are in ../shared beside the project's own checkouts (and CI's);
  // a clone elsewhere has only the copies, which the other tests then quote against.
  const shared = `${root}../shared/`;
  if (!existsSync(shared)) return;
  const pairs = [
    ['seed/000_e953a78941f9ffae.txt', 'conformance/sources/interface-document.txt'],
    ['design/contract.md', 'conformance/sources/contract.txt'],
  ];
  for (const [original, copy] of pairs)
    assert.ok(readFileSync(`${shared}${original}`).equals(readFileSync(`${root}${copy}`)), `${copy} differs`);
});

test('the ledger parses, ids are unique, and every rule is encoded, checked or has a reason', () => {
  assert.equal(ledger.problems, []);
  assert.ok(ledger.rules.length > 100, `only ${ledger.rules.length} rules`);
  assert.is(new Set(ledger.rules.map((rule) => rule.id)).size, ledger.rules.length);
  for (const rule of ledger.rules) {
    assert.ok(rule.quote.trim(), `${rule.id} has an empty quote`);
    assert.ok(rule.encoded.length || rule.checks.length || rule.not_checkable, `${rule.id} has no coverage`);
  }
});

test('every case a rule names in `cases` is a named case of the suite, and every named case is named by a rule', () => {
  const named = ledger.rules.flatMap((rule) => (rule.cases ?? []).map((name) => [rule.id, name] as const));
  assert.equal(
    named.filter(([, name]) => !(name in NAMED_CASES)).map(([id, name]) => `${id}: ${name}`),
    [],
  );
  const used = new Set(named.map(([, name]) => name));
  assert.equal(
    Object.keys(NAMED_CASES).filter((name) => !used.has(name)),
    [],
  );
});

test('pointers resolve, checks are registered, quotes are verbatim, sections are headings, headings are covered', () => {
  const problems = auditRules(ledger.rules, inputs);
  assert.equal(problems, [], problems.join('\n'));
});

test('the heading criterion is not vacuous: the document has sections with text, and only containers lack it', () => {
  const sections = documentSections(inputs.sources.document);
  const withText = sections.filter((s) => s.hasText).map((s) => s.path);
  const containers = sections.filter((s) => !s.hasText).map((s) => s.path);
  assert.ok(withText.length >= 30, `${withText.length} sections with text`);
  assert.ok(withText.includes('Errors > HTTP status map'));
  assert.ok(withText.includes('Endpoints > POST /v3/transcriptions/stream/create'));
  assert.equal(containers, ['Resources and their fields', 'States and transitions', 'Authentication', 'Errors']);
});

test('the rules cover every status of the status map, every machine code and every edge of the state machine', () => {
  const ids = new Set(ledger.rules.map((rule) => rule.id));
  for (const status of ['400', '401', '402', '403', '404', '409', '429', '5xx'])
    assert.ok(ids.has(`errors.status-map.${status}`), `no rule for status ${status}`);
  const document = inputs.sources.document;
  const machineCodes = document.split('### Machine codes')[1]!.split('###')[0]!;
  const codes = [...machineCodes.matchAll(/^\| ([a-z_]+) \|/gm)].map((m) => m[1]!).filter((c) => c !== 'code');
  assert.is(codes.length, 12);
  for (const code of codes) assert.ok(ids.has(`errors.code.${code.replace(/_/g, '-')}`), `no rule for code ${code}`);
  const table = document.split('| From | Trigger |')[1]!.split('Rules:')[0]!;
  for (const [, from, to] of table.matchAll(/^\| ([a-z]+) \|[^|]*\|[^|]*\| ([a-z]+) \|/gm))
    assert.ok(ids.has(`states.v3.edge.${from}-${to}`), `no rule for the edge ${from} → ${to}`);
});

test('the audit finds each kind of fault', () => {
  const faulty = parseLedger(`
rules:
  - id: faults.bad-pointer
    section: Limits
    quote: 'Keys'
    encoded: ['openapi#/paths/~1v9~1nothing/get']
  - id: faults.unknown-check
    section: Limits
    quote: 'Keys'
    checks: [no_such_check]
  - id: faults.misquote
    section: Limits
    quote: 'Keys are free forever'
    not_checkable: a reason
  - id: faults.other-section
    section: Limits
    quote: 'Liveness check'
    not_checkable: a reason
  - id: faults.no-such-section
    section: Limits > Nowhere
    quote: 'Keys'
    not_checkable: a reason
  - id: faults.wrong-value
    section: Limits
    quote: 'Keys'
    encoded: ['openapi#/x-rate-limit/requests_per_second']
    value: 11
  - id: faults.decision-misquote
    section: Limits
    source: decision
    quote: 'Keys'
    not_checkable: a reason
`);
  assert.equal(faulty.problems, []);
  const problems = auditRules(faulty.rules, inputs).join('\n');
  assert.match(problems, 'faults.bad-pointer: pointer openapi#/paths/~1v9~1nothing/get does not resolve');
  assert.match(problems, 'faults.unknown-check: check no_such_check is not registered');
  assert.match(problems, 'faults.misquote: quote is not in the interface document');
  assert.match(problems, 'faults.other-section: quote is not in the interface document under "Limits"');
  assert.match(problems, 'faults.no-such-section: section "Limits > Nowhere" is not a heading');
  assert.match(problems, 'faults.wrong-value: openapi#/x-rate-limit/requests_per_second holds 10, not 11');
  assert.match(problems, 'faults.decision-misquote: quote is not in contract.md');
  assert.match(problems, 'section "Versioning" has no rule');
});

test('the shape check refuses a rule without coverage, a duplicate id, an empty quote and a bad pointer form', () => {
  const { problems } = parseLedger(`
rules:
  - { id: shape.nothing, section: Limits, quote: 'Keys' }
  - { id: shape.twice, section: Limits, quote: 'Keys', checks: [not_a_server_error] }
  - { id: shape.twice, section: Limits, quote: 'Keys', checks: [not_a_server_error] }
  - { id: shape.empty-quote, section: Limits, quote: ' ', checks: [not_a_server_error] }
  - { id: shape.pointer, section: Limits, quote: 'Keys', encoded: ['#/paths'] }
  - { id: shape.both, section: Limits, quote: 'Keys', checks: [not_a_server_error], not_checkable: why }
  - { id: shape.gap, section: Limits, quote: 'Keys', checks: [not_a_server_error], gap: what }
  - { id: shape.extra, section: Limits, quote: 'Keys', checks: [not_a_server_error], note: x }
`);
  const text = problems.join('\n');
  assert.match(text, 'shape.nothing: neither encoded, checked nor given a reason');
  assert.match(text, 'shape.twice: id used twice');
  assert.match(text, 'shape.empty-quote: quote is empty');
  assert.match(text, 'shape.pointer: pointer #/paths is not openapi#/… or asyncapi#/…');
  assert.match(text, 'shape.both: both checked and not_checkable');
  assert.match(text, 'shape.gap: a gap is for a checkable rule');
  assert.match(text, 'shape.extra: unknown field note');
});

test('a pointer runs on through a $ref and escapes ~1', () => {
  const through = resolvePointer(
    inputs.documents,
    'openapi#/paths/~1v3~1transcriptions~1status~1{id}/get/responses/404/content/application~1json/schema/properties',
  );
  assert.ok(through.found && typeof through.value === 'object' && through.value && 'error' in through.value);
  assert.equal(resolvePointer(inputs.documents, 'asyncapi#/components/schemas/StreamCloseCode/enum/0'), {
    found: true,
    value: 1000,
  });
  assert.is(resolvePointer(inputs.documents, 'openapi#/paths/~1v3~1models/put').found, false);
});

test('--rules prints every rule and the summary, --rules --json one line per rule, and the README has the counts', () => {
  const cli = (args: string[]) =>
    spawnSync(process.execPath, ['conformance/bin/scribe-conformance.mjs', ...args], { cwd: root, encoding: 'utf8' });
  const text = cli(['--rules']);
  assert.is(text.status, 0, text.stdout + text.stderr);
  const summary = rulesSummaryLine(ledger.rules, proven);
  assert.ok(text.stdout.trimEnd().endsWith(summary), text.stdout.slice(-400));
  for (const rule of ledger.rules) assert.ok(text.stdout.includes(`${rule.id} `), `${rule.id} not printed`);

  const ndjson = cli(['--rules', '--json']);
  assert.is(ndjson.status, 0, ndjson.stderr);
  const lines = ndjson.stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  const rules = lines.filter((line) => line.type === 'rule');
  assert.is(rules.length, ledger.rules.length);
  for (const line of rules) {
    const rule = ledger.rules.find((r) => r.id === line.id)!;
    assert.is(line.coverage, coverageOf(rule, proven));
    assert.equal(line.killed_by, proven.get(rule.id) ?? []);
  }
  assert.equal(lines.at(-1), { type: 'summary', ...summarize(ledger.rules, proven), problems: 0 });

  const readme = readFileSync(`${root}conformance/README.md`, 'utf8');
  assert.ok(readme.includes(summary), `conformance/README.md does not state: ${summary}`);
});

test('a rule is checked only when a mutant that breaks it was killed by one of its own checks', () => {
  const { rules } = parseLedger(`
rules:
  - { id: proof.killed, section: Limits, quote: 'Keys', checks: [sse_conformance] }
  - { id: proof.other-check, section: Limits, quote: 'Keys', checks: [sse_conformance] }
  - { id: proof.survived, section: Limits, quote: 'Keys', checks: [sse_conformance] }
  - { id: proof.none, section: Limits, quote: 'Keys', encoded: ['openapi#/paths'] }
  - { id: proof.reason, section: Limits, quote: 'Keys', not_checkable: inside the server }
`);
  const recorded: MutantResults = {
    measured: 'crafted',
    mutants: [
      { name: 'a', category: 'x', rules: ['proof.killed'], killed: true, by: ['sse_conformance'], seconds: 1 },
      { name: 'b', category: 'x', rules: ['proof.other-check'], killed: true, by: ['not_a_server_error'], seconds: 1 },
      { name: 'c', category: 'x', rules: ['proof.survived'], killed: false, by: [], seconds: 1 },
    ],
  };
  const found = provenRules(rules, recorded);
  assert.equal([...found.keys()], ['proof.killed']);
  assert.equal(
    rules.map((rule) => coverageOf(rule, found)),
    ['checked', 'judged', 'judged', 'unjudged', 'not_checkable'],
  );
  assert.equal(summarize(rules, found), {
    checked: 1,
    judged: 2,
    unjudged: 1,
    not_checkable: 1,
    total: 5,
    checkable: 4,
    gaps: 0,
  });
});

test.run();
