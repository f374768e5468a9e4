// `npm pack` of scribe-conformance (prepack): bundles the suite's TypeScript into one ES module with esbuild, its npm
// dependencies left as imports (they are the package's `dependencies`, all plain JavaScript), and copies beside the
// bundle every file a module finds through `new URL(…, import.meta.url)`. In a bundle every module shares the
// bundle's URL, so each such file is placed where its relative path lands from the bundle: the bundle sits in
// dist/conformance/core/ as the modules sit in conformance/core/, and the bundled contract lands in dist/generated/.
// `--clean` (postpack) removes dist/ again so the working tree stays as it was.
import { build } from 'esbuild';
import { copyFileSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '..');
const dist = join(here, 'dist');
const bundle = join(dist, 'conformance', 'core', 'scribe-conformance.mjs');

/** Files found from a template literal: the documents options.ts names by `${name}`. */
const TEMPLATED = { '../../generated/${name}': ['openapi.json', 'asyncapi.json'] };

if (process.argv.includes('--clean')) {
  rmSync(dist, { recursive: true, force: true });
  process.exit(0);
}

rmSync(dist, { recursive: true, force: true });
const result = await build({
  absWorkingDir: root, // metafile paths are relative to it
  entryPoints: [join(here, 'cli.ts')],
  outfile: bundle,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  metafile: true,
  logLevel: 'warning',
  legalComments: 'none',
});

const manifest = JSON.parse(readFileSync(join(here, 'package.json'), 'utf8'));
const declared = new Set(Object.keys(manifest.dependencies ?? {}));
const builtins = new Set(builtinModules);
const packageOf = (specifier) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');
const missing = new Set();
for (const { path, external } of Object.values(result.metafile.outputs).flatMap((output) => output.imports)) {
  if (!external || path.startsWith('node:') || builtins.has(path)) continue;
  if (!declared.has(packageOf(path))) missing.add(packageOf(path));
}
if (missing.size > 0) throw new Error(`conformance/package.json lacks dependencies: ${[...missing].join(', ')}`);

const placed = new Map();
const place = (input, relativePath) => {
  const source = resolve(root, dirname(input), relativePath);
  const target = resolve(dirname(bundle), relativePath);
  if (placed.has(target) && placed.get(target) !== source)
    throw new Error(`${relativePath} means ${placed.get(target)} and ${source} in the bundle`);
  placed.set(target, source);
};
const urlReference = /new URL\(\s*(['"`])([^'"`]+)\1\s*,\s*import\.meta\.url\s*\)/g;
for (const input of Object.keys(result.metafile.inputs)) {
  if (input.includes('node_modules')) continue;
  for (const [, quote, path] of readFileSync(resolve(root, input), 'utf8').matchAll(urlReference)) {
    if (quote === '`' && path.includes('${')) {
      const names = TEMPLATED[path];
      if (!names) throw new Error(`${input}: the files of new URL(\`${path}\`) are unknown to the package build`);
      for (const name of names) place(input, path.replace(/\$\{[^}]+\}/, name));
    } else place(input, path);
  }
}
for (const [target, source] of placed) {
  mkdirSync(dirname(target), { recursive: true });
  copyFileSync(source, target);
}
console.log(`scribe-conformance: ${relative(here, bundle)} and ${placed.size} files it reads`);
