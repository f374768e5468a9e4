// `npm test`: runs every *.test.ts (uvu suites) in its own Node process with tsx, streams the output, and ends with the
// line `N passed, N failed` that CI reads (uvu prints only Total/Passed/Skipped). A test file that crashes before
// printing its summary counts as one failure. Optional arguments filter files by substring.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { root } from './spec-tools.mjs';

const roots = ['test', 'server', 'conformance'];
const skipDirs = new Set(['node_modules', 'generated', 'site', 'data']);

function findTests(dir, found = []) {
  let entries;
  try {
    entries = readdirSync(dir);
  } catch {
    return found;
  }
  for (const entry of entries.sort()) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) {
      if (!skipDirs.has(entry)) findTests(path, found);
    } else if (entry.endsWith('.test.ts')) {
      found.push(path);
    }
  }
  return found;
}

const filters = process.argv.slice(2);
const files = roots
  .flatMap((dir) => findTests(join(root, dir)))
  .filter((file) => filters.length === 0 || filters.some((f) => file.includes(f)));

let passed = 0;
let failed = 0;
let skipped = 0;
const broken = [];

for (const file of files) {
  const name = relative(root, file);
  console.log(`\n=== ${name}`);
  const result = spawnSync(process.execPath, ['--import', 'tsx', file], {
    cwd: root,
    env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    maxBuffer: 256 * 1024 * 1024,
  });
  process.stdout.write(result.stdout);
  process.stderr.write(result.stderr);
  const out = stripVTControlCharacters(result.stdout);
  const total = Number(out.match(/Total:\s+(\d+)/)?.[1] ?? NaN);
  const ok = Number(out.match(/Passed:\s+(\d+)/)?.[1] ?? NaN);
  const skip = Number(out.match(/Skipped:\s+(\d+)/)?.[1] ?? 0);
  if (Number.isNaN(total) || Number.isNaN(ok)) {
    failed += 1;
    broken.push(`${name} (no summary, exit ${result.status ?? result.signal})`);
    continue;
  }
  passed += ok;
  skipped += skip;
  failed += total - ok - skip;
  if (result.status !== 0 && total - ok - skip === 0) {
    failed += 1;
    broken.push(`${name} (exit ${result.status} after its tests)`);
  }
}

if (broken.length > 0) console.log(`\nBroken test files:\n  ${broken.join('\n  ')}`);
if (files.length === 0) console.log('No test files found.');
console.log(`\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(failed > 0 || files.length === 0 ? 1 : 0);
