// Holds the rule ledger against what it claims: every pointer resolves in the bundled documents (holding the rule's
// `value` when it names one), every check is registered, every quote is verbatim in its source, every section is a
// heading of the interface document, and every heading whose own text says something has at least one rule.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import type { Rule } from './rules.ts';

/** Verbatim copies of the two texts the ledger quotes, kept beside it so the suite stands on its own. */
export const SOURCE_PATHS = {
  document: fileURLToPath(new URL('../sources/interface-document.txt', import.meta.url)),
  decision: fileURLToPath(new URL('../sources/contract.txt', import.meta.url)),
} as const;

export interface AuditInputs {
  documents: { openapi: unknown; asyncapi: unknown };
  /** Names of the registered checks. */
  checks: ReadonlySet<string>;
  /** Text of the interface document and of contract.md. */
  sources: Record<Rule['source'], string>;
}

export const readSources = (): AuditInputs['sources'] => ({
  document: readFileSync(SOURCE_PATHS.document, 'utf8'),
  decision: readFileSync(SOURCE_PATHS.decision, 'utf8'),
});

const unescape = (token: string) => token.replace(/~1/g, '/').replace(/~0/g, '~');

/**
 * Resolves `openapi#/a/b` or `asyncapi#/a/b` (RFC 6901 after the `#`). A key the current object lacks is looked up
 * through its local `$ref`, so a pointer may continue into a referenced component
 * (`…/responses/404/content/application~1json/schema`).
 */
export function resolvePointer(
  documents: AuditInputs['documents'],
  pointer: string,
): { found: true; value: unknown } | { found: false; at: string } {
  const [name, path = ''] = pointer.split('#', 2) as [string, string?];
  const root = (documents as Record<string, unknown>)[name];
  if (root === undefined) return { found: false, at: name };
  const tokens = path === '' ? [] : path.slice(1).split('/').map(unescape);
  let node: unknown = root;
  let walked = '';
  for (const token of tokens) {
    for (let hops = 0; hops < 16; hops += 1) {
      if (!node || typeof node !== 'object' || token in node) break;
      const ref = (node as { $ref?: unknown }).$ref;
      if (typeof ref !== 'string' || !ref.startsWith('#/')) break;
      const target = resolvePointer(documents, `${name}${ref}`);
      if (!target.found) return { found: false, at: `${walked} → ${ref}` };
      node = target.value;
    }
    if (!node || typeof node !== 'object' || !(token in node)) return { found: false, at: `${walked}/${token}` };
    node = (node as Record<string, unknown>)[token];
    walked += `/${token}`;
  }
  return { found: true, value: node };
}

const holds = (actual: unknown, expected: unknown) =>
  isDeepStrictEqual(actual, expected) ||
  (Array.isArray(actual) && !Array.isArray(expected) && actual.some((item) => isDeepStrictEqual(item, expected)));

/** Whitespace-insensitive, so a quote may join lines that the source wraps. */
const normalize = (text: string) => text.replace(/\s+/g, ' ').trim();

export interface Section {
  /** `H2` or `H2 > H3` (the title alone for the document's `#` heading). */
  path: string;
  /** The heading's own text (up to the next heading of any level) has at least one non-blank line. */
  hasText: boolean;
  /** That text. */
  text: string;
}

/** Headings of a Markdown text with their paths, in order. */
export function documentSections(text: string): Section[] {
  const sections: Section[] = [];
  const trail: string[] = [];
  let current: Section | undefined;
  for (const line of text.split('\n')) {
    const heading = /^(#{1,3}) (.+?)\s*$/.exec(line);
    if (heading) {
      const level = heading[1]!.length;
      trail.length = Math.max(0, level - 2);
      const path = level === 1 ? heading[2]! : [...trail, heading[2]!].join(' > ');
      if (level > 1) trail.push(heading[2]!);
      current = { path, hasText: false, text: '' };
      sections.push(current);
    } else if (current) {
      current.text += `${line}\n`;
      if (line.trim()) current.hasText = true;
    }
  }
  return sections;
}

/** Every problem of the ledger against its inputs, one line each (empty when the ledger holds). */
export function auditRules(rules: Rule[], inputs: AuditInputs): string[] {
  const problems: string[] = [];
  const sections = documentSections(inputs.sources.document);
  const textOf = new Map(sections.map((s) => [s.path, normalize(s.text)]));
  const decisions = normalize(inputs.sources.decision);
  for (const rule of rules) {
    const fail = (message: string) => problems.push(`${rule.id}: ${message}`);
    const section = textOf.get(rule.section);
    if (section === undefined) fail(`section "${rule.section}" is not a heading of the interface document`);
    // A document quote must come from the rule's own section, so the section is where a reader finds it.
    const quoted = normalize(rule.quote);
    if (rule.source === 'decision' && !decisions.includes(quoted)) fail(`quote is not in contract.md: "${rule.quote}"`);
    if (rule.source === 'document' && section !== undefined && !section.includes(quoted))
      fail(`quote is not in the interface document under "${rule.section}": "${rule.quote}"`);
    rule.encoded.forEach((pointer, index) => {
      const target = resolvePointer(inputs.documents, pointer);
      if (!target.found) return fail(`pointer ${pointer} does not resolve (missing ${target.at})`);
      if (index === 0 && 'value' in rule && !holds(target.value, rule.value))
        fail(`${pointer} holds ${JSON.stringify(target.value)}, not ${JSON.stringify(rule.value)}`);
    });
    for (const pointer of rule.provoked_at ?? []) {
      const target = resolvePointer(inputs.documents, pointer);
      if (!target.found) fail(`provoked_at ${pointer} does not resolve (missing ${target.at})`);
    }
    for (const check of rule.checks) if (!inputs.checks.has(check)) fail(`check ${check} is not registered`);
  }
  const covered = new Set(rules.map((rule) => rule.section));
  for (const section of sections)
    if (section.hasText && !covered.has(section.path)) problems.push(`section "${section.path}" has no rule`);
  return problems;
}
