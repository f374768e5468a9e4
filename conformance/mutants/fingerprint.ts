// What a mutant's recorded result stands on, as one hash: the mutant itself (its name, rules, arguments, rewrites and
// the text of its entry in the catalog file that defines it), the ledger entries of the rules it breaks, and the
// source of those rules' checks. A recorded result whose fingerprint differs from the catalog's is stale: something
// it proved was changed since it ran, so the rules that change touched are unproven until the mutant runs again.
// A check's helpers in other files and the cases that provoke it are not part of it (a change there is not seen); a
// mutant whose name is built from a table (a status change) has no entry of its own, but its name carries its values.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Rule } from '../core/rules.ts';
import type { Mutant } from './proxy.ts';

const CATALOG_DIR = fileURLToPath(new URL('./catalog/', import.meta.url));
const CHECKS_DIR = fileURLToPath(new URL('../checks/', import.meta.url));

/** The texts a fingerprint reads: the catalog files and each check's source, by check name. */
export interface FingerprintSources {
  catalog: string[];
  check(name: string): string;
}

export function loadFingerprintSources(): FingerprintSources {
  const catalog = readdirSync(CATALOG_DIR)
    .filter((file) => file.endsWith('.ts'))
    .sort()
    .map((file) => readFileSync(CATALOG_DIR + file, 'utf8'));
  const checks = new Map<string, string>();
  return {
    catalog,
    check(name) {
      if (!checks.has(name)) {
        const path = `${CHECKS_DIR}${name.replaceAll('_', '-')}.ts`;
        checks.set(name, existsSync(path) ? readFileSync(path, 'utf8') : '');
      }
      return checks.get(name)!;
    },
  };
}

/**
 * A mutant's entry in the catalog file that names it: from its name to the next quoted name of the same file (the
 * arguments written beside the name — a field, a status — are what a factory's closure hides from `String(fn)`).
 */
export function catalogEntry(mutant: Mutant, files: readonly string[]): string {
  for (const text of files) {
    const at = [`'${mutant.name}'`, `"${mutant.name}"`, `\`${mutant.name}\``]
      .map((quoted) => text.indexOf(quoted))
      .find((index) => index >= 0);
    if (at === undefined) continue;
    const next = text.slice(at + mutant.name.length + 2).search(/\n\s*(?:name:\s*)?['"`][^'"`\n]{12,}['"`],\n/);
    return next < 0 ? text.slice(at) : text.slice(at, at + mutant.name.length + 2 + next);
  }
  return '';
}

export function mutantFingerprint(
  mutant: Mutant,
  rules: ReadonlyMap<string, Rule>,
  sources: FingerprintSources,
): string {
  const hash = createHash('sha256');
  const own = {
    name: mutant.name,
    category: mutant.category,
    rules: mutant.rules,
    args: mutant.args ?? null,
    replayReusedTicket: mutant.replayReusedTicket ?? false,
    rewrites: [mutant.response, mutant.frame, mutant.webhook, mutant.closeCode].map((fn) => (fn ? String(fn) : null)),
  };
  hash.update(JSON.stringify(own));
  // the hooks added to the proxy later, hashed only when a mutant has them (the others' fingerprints stay as they were)
  const later = (['request', 'clientFrame', 'socketPath', 'freshSession', 'webhookBody', 'forwardPath'] as const)
    .filter((hook) => mutant[hook] !== undefined)
    .map((hook) => `${hook}: ${String(mutant[hook])}`);
  if (later.length > 0) hash.update(JSON.stringify(later));
  hash.update(catalogEntry(mutant, sources.catalog));
  for (const id of [...mutant.rules].sort()) {
    const rule = rules.get(id);
    hash.update(JSON.stringify(rule ?? null));
    for (const check of [...(rule?.checks ?? [])].sort()) hash.update(sources.check(check));
  }
  return hash.digest('hex').slice(0, 16);
}
