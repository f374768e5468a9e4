// The rule ledger (`conformance/rules.yaml`): every normative statement of the interface document, and every decision
// of contract.md where the document says "not shown", with where the contract encodes it and which checks of this
// suite verify it from outside. This module reads the ledger, validates its shape and classifies each rule's coverage;
// `rules-audit.ts` holds it against the documents, the registered checks and the sources it quotes.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

export const LEDGER_PATH = fileURLToPath(new URL('../rules.yaml', import.meta.url));

export type RuleSource = 'document' | 'decision';

export interface Rule {
  id: string;
  /** Heading path of the interface document, `H2 > H3`, where the statement (or its "not shown") is. */
  section: string;
  quote: string;
  source: RuleSource;
  /** Pointers into the bundled documents: `openapi#/json/pointer` or `asyncapi#/json/pointer`. */
  encoded: string[];
  /** Names of registered suite checks that verify the rule against a running server. */
  checks: string[];
  /** Why no check can verify the rule from outside the server. */
  not_checkable?: string;
  /** Checkable from outside, but no check of the suite provokes or judges it yet: what is missing. */
  gap?: string;
  /** What the first `encoded` pointer must hold (equal to it, or one of its items when it is a list). */
  value?: unknown;
  /**
   * Where the rule's checks judge it, when that is not where it is encoded (a rule encoded on a 402 that a check
   * judges on the 201 of the same operation): pointers like `encoded`, read by the run's rule trace instead of them.
   */
  provoked_at?: string[];
  /**
   * The named cases that provoke the rule, when only a specific scenario does (an expired ticket, an upload over a
   * limit): the run's rule trace then counts only observations of one of these cases, never the rest of its scope.
   */
  cases?: string[];
}

/**
 * Mutually exclusive, from the ledger and the mutant results: `checked` — a check names the rule and a mutant that
 * breaks it was killed by one of those checks; `judged` — a check names it, but no killed mutant proves the check can
 * fail on it yet; `unjudged` — checkable from outside, but no check names it (encoded only, or a gap);
 * `not_checkable` — a reason why nothing outside the server can tell.
 */
export type Coverage = 'checked' | 'judged' | 'unjudged' | 'not_checkable';
export const COVERAGES: readonly Coverage[] = ['checked', 'judged', 'unjudged', 'not_checkable'];

export interface Ledger {
  rules: Rule[];
  /** Shape problems (one line each); a ledger with problems must not be trusted. */
  problems: string[];
}

const ID = /^[a-z0-9]+(?:[-_][a-z0-9]+)*(?:\.[a-z0-9]+(?:[-_][a-z0-9]+)*)+$/;
const POINTER = /^(openapi|asyncapi)#(\/.*)?$/;
const KEYS = new Set([
  'id',
  'section',
  'quote',
  'source',
  'encoded',
  'checks',
  'not_checkable',
  'gap',
  'value',
  'provoked_at',
  'cases',
]);

const isStringList = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every((item) => typeof item === 'string' && item.trim() !== '');

/** Validates one raw ledger entry; returns the rule (when usable) and what is wrong with it. */
function ruleOf(raw: unknown, index: number): { rule?: Rule; problems: string[] } {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return { problems: [`rule #${index + 1}: not a mapping`] };
  const entry = raw as Record<string, unknown>;
  const name = typeof entry.id === 'string' ? entry.id : `#${index + 1}`;
  const problems: string[] = [];
  const fail = (message: string) => problems.push(`${name}: ${message}`);
  for (const key of Object.keys(entry)) if (!KEYS.has(key)) fail(`unknown field ${key}`);
  if (typeof entry.id !== 'string' || !ID.test(entry.id)) fail('id must be dotted lowercase words (area.topic…)');
  if (typeof entry.section !== 'string' || !entry.section.trim()) fail('section is empty');
  if (typeof entry.quote !== 'string' || !entry.quote.trim()) fail('quote is empty');
  const source = entry.source ?? 'document';
  if (source !== 'document' && source !== 'decision') fail('source is document or decision');
  const encoded = entry.encoded ?? [];
  const checks = entry.checks ?? [];
  if (!isStringList(encoded)) fail('encoded must be a list of pointers');
  else
    for (const pointer of encoded)
      if (!POINTER.test(pointer)) fail(`pointer ${pointer} is not openapi#/… or asyncapi#/…`);
  if (!isStringList(checks)) fail('checks must be a list of check names');
  const reason = entry.not_checkable;
  if (reason !== undefined && (typeof reason !== 'string' || !reason.trim())) fail('not_checkable must be a reason');
  if (isStringList(encoded) && isStringList(checks) && encoded.length === 0 && checks.length === 0 && !reason)
    fail('neither encoded, checked nor given a reason why it cannot be checked');
  if (isStringList(checks) && checks.length > 0 && reason) fail('both checked and not_checkable');
  const gap = entry.gap;
  if (gap !== undefined && (typeof gap !== 'string' || !gap.trim())) fail('gap must say what is missing');
  if (gap !== undefined && ((isStringList(checks) && checks.length > 0) || reason))
    fail('a gap is for a checkable rule that no check covers yet');
  if ('value' in entry && (!isStringList(encoded) || encoded.length === 0)) fail('value without a pointer to hold it');
  const provokedAt = entry.provoked_at;
  if (provokedAt !== undefined) {
    if (!isStringList(provokedAt) || provokedAt.length === 0) fail('provoked_at must be a list of pointers');
    else
      for (const pointer of provokedAt)
        if (!POINTER.test(pointer)) fail(`pointer ${pointer} is not openapi#/… or asyncapi#/…`);
    if (isStringList(checks) && checks.length === 0) fail('provoked_at is for a rule with checks');
  }
  const cases = entry.cases;
  if (cases !== undefined) {
    if (!isStringList(cases) || cases.length === 0) fail('cases must be a list of case names');
    if (isStringList(checks) && checks.length === 0) fail('cases is for a rule with checks');
  }
  if (problems.length) return { problems };
  const rule: Rule = {
    id: entry.id as string,
    section: entry.section as string,
    quote: entry.quote as string,
    source: source as RuleSource,
    encoded: encoded as string[],
    checks: checks as string[],
  };
  if (typeof reason === 'string') rule.not_checkable = reason;
  if (typeof gap === 'string') rule.gap = gap;
  if ('value' in entry) rule.value = entry.value;
  if (provokedAt !== undefined) rule.provoked_at = provokedAt as string[];
  if (cases !== undefined) rule.cases = cases as string[];
  return { rule, problems };
}

/** Parses ledger text: a YAML mapping with a `rules` list. */
export function parseLedger(text: string): Ledger {
  let document: { rules?: unknown } | null;
  try {
    document = parse(text) as { rules?: unknown } | null;
  } catch (error) {
    return { rules: [], problems: [`the ledger is not YAML: ${(error as Error).message}`] };
  }
  if (!document || !Array.isArray(document.rules)) return { rules: [], problems: ['the ledger has no rules list'] };
  const rules: Rule[] = [];
  const problems: string[] = [];
  const seen = new Set<string>();
  document.rules.forEach((raw, index) => {
    const result = ruleOf(raw, index);
    problems.push(...result.problems);
    if (!result.rule) return;
    if (seen.has(result.rule.id)) problems.push(`${result.rule.id}: id used twice`);
    seen.add(result.rule.id);
    rules.push(result.rule);
  });
  return { rules, problems };
}

export const loadLedger = (path = LEDGER_PATH): Ledger => parseLedger(readFileSync(path, 'utf8'));

/** What the mutant runner recorded of one mutant (conformance/mutants/results.json). */
export interface MutantResult {
  name: string;
  category: string;
  /** The ledger rules the mutant breaks. */
  rules: string[];
  killed: boolean;
  /** The checks that failed on the mutant's run. */
  by: string[];
  seconds: number;
  /** What the result stands on (`mutants/fingerprint.ts`): when the catalog's differs, the result is stale. */
  fingerprint?: string;
}

export interface MutantResults {
  /** When and how the results were measured (a sentence). */
  measured: string;
  mutants: MutantResult[];
}

export const MUTANT_RESULTS_PATH = fileURLToPath(new URL('../mutants/results.json', import.meta.url));

export function loadMutantResults(path = MUTANT_RESULTS_PATH): MutantResults {
  if (!existsSync(path)) return { measured: 'never', mutants: [] };
  return JSON.parse(readFileSync(path, 'utf8')) as MutantResults;
}

/**
 * The rules a killed mutant proves, each with the mutants that do: a mutant proves a rule it breaks only when one of
 * the checks that killed it is one the rule names (a mutant killed by an unrelated check proves nothing about it).
 */
export function provenRules(rules: Rule[], results: MutantResults): Map<string, string[]> {
  const byId = new Map(rules.map((rule) => [rule.id, rule]));
  const proven = new Map<string, string[]>();
  for (const mutant of results.mutants) {
    if (!mutant.killed) continue;
    for (const id of mutant.rules) {
      const rule = byId.get(id);
      if (!rule || !mutant.by.some((check) => rule.checks.includes(check))) continue;
      proven.set(id, [...(proven.get(id) ?? []), mutant.name]);
    }
  }
  return proven;
}

/** A rule with a reason is not checkable even when the contract encodes it: the reason is the news. */
export function coverageOf(rule: Rule, proven: ReadonlyMap<string, unknown>): Coverage {
  if (rule.not_checkable) return 'not_checkable';
  if (rule.checks.length === 0) return 'unjudged';
  return proven.has(rule.id) ? 'checked' : 'judged';
}

/** Counts per coverage, the total, the checkable rules, and how many rules are marked as a gap of the suite. */
export type CoverageSummary = Record<Coverage, number> & { total: number; checkable: number; gaps: number };

export function summarize(rules: Rule[], proven: ReadonlyMap<string, unknown>): CoverageSummary {
  const summary: CoverageSummary = {
    checked: 0,
    judged: 0,
    unjudged: 0,
    not_checkable: 0,
    total: rules.length,
    checkable: 0,
    gaps: 0,
  };
  for (const rule of rules) {
    const coverage = coverageOf(rule, proven);
    summary[coverage] += 1;
    if (coverage !== 'not_checkable') summary.checkable += 1;
    if (rule.gap) summary.gaps += 1;
  }
  return summary;
}
