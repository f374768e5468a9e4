// Reading the README's sections and code blocks, for the tests that run its commands as a reader would.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('../../', import.meta.url).pathname;

/** The address the README's commands use; tests replace it with their server's. */
export const README_BASE = 'http://127.0.0.1:8080';

/** The section of the README from a heading to the next `###` heading (throws when there is none). */
export function readmeSection(heading: string): string {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const start = readme.indexOf(heading);
  if (start < 0) throw new Error(`README has no "${heading}"`);
  const end = readme.indexOf('\n### ', start + heading.length);
  return readme.slice(start, end < 0 ? undefined : end);
}

/** The bodies of the fenced code blocks of one language. */
export const codeBlocks = (text: string, lang: string): string[] =>
  [...text.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]!);

/** A shell block's commands: continuation lines joined, comment lines and trailing comments dropped. */
export const shellCommands = (block: string): string[] =>
  block
    .replace(/\\\n\s*/g, '')
    .split('\n')
    .map((line) => line.replace(/\s+#.*$/, '').trim())
    .filter((line) => line && !line.startsWith('#'));
