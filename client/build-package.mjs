// `npm pack` of scribe-client (prepack): compiles src/ and the generated client it imports from generated/client
// (never copied into the tree) to JavaScript and .d.ts in dist/, which mirrors the repository (dist/client/src/,
// dist/generated/client/). The library part is first type-checked without Node's types, so nothing in it needs
// Node: it runs in browsers too. `--clean` (postpack) removes dist/ again.
import { execFileSync } from 'node:child_process';
import { chmodSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const dist = join(here, 'dist');
rmSync(dist, { recursive: true, force: true });
if (process.argv.includes('--clean')) process.exit(0);

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const run = (project) => {
  try {
    execFileSync(process.execPath, [tsc, '-p', join(here, project)], { stdio: 'inherit' });
  } catch {
    process.exit(1); // tsc printed the errors
  }
};
run('tsconfig.browser.json');
run('tsconfig.json');
chmodSync(join(dist, 'client/src/cli/main.js'), 0o755);
console.log('scribe-client: dist/client/src (library and CLI), dist/generated/client');
