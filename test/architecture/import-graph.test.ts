// The whole house's import graph (server, conformance, client, scripts, bench, test, docs; tests included) has no
// circle: no module reaches itself through its imports, so each can be read, loaded and changed after what it builds
// on. It also keeps each package's lower layers below its features house-wide: a lower layer's source imports no
// feature of its package and nothing of the tools above every package (tests' harnesses, test/, bench/, scripts/).
// Its tests may (they wire the real parts together); those arrows are printed with the graph's counts, so a report
// can name them. server/src/import-layers.test.ts holds the server's own layering, through what imports reach.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  arrows,
  describeCircle,
  importCircles,
  importGraph,
  sourceFiles,
  type ImportGraph,
} from '../support/import-graph.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');

/** Each package's folder and its lower layers (folders of it, `.` for the modules directly in it). */
const PACKAGES: Array<{ folder: string; lower: string[] }> = [
  { folder: 'server/src', lower: ['db', 'http', 'media', 'background', 'workers', 'secrets'] },
  // The suite's engine (contract, client, recorder, rules) and its report; cases, checks, suites and mutants use them.
  { folder: 'conformance', lower: ['core', 'report'] },
  // The library the package exports; its CLI is built on it.
  { folder: 'client/src', lower: ['.'] },
];

/** What stands above every package: the harnesses of the tests and the repository's own tools. */
const TOOLS = ['server/src/test-support/', 'test/', 'bench/', 'scripts/', 'docs/'];

/**
 * Arrows from a lower layer's source upward that are meant, each with why: the settings root (config.ts), which the
 * database and the server key read their settings from, as server/src/import-layers.test.ts also allows.
 */
const MEANT_UPWARD = new Map([
  ['server/src/db/database.ts -> server/src/config.ts', 'the database reads its settings (the settings root)'],
  ['server/src/secrets/secret-key.ts -> server/src/config.ts', 'the server key reads its setting (the settings root)'],
]);

const isTest = (module: string) => /\.test\.(ts|mts|mjs|js)$/.test(module);

/** The package a module belongs to and its layer there (the folder below the package, `.` directly in it). */
function placeOf(module: string): { folder: string; layer: string; lower: boolean } | undefined {
  const owner = PACKAGES.find(({ folder }) => module.startsWith(`${folder}/`));
  if (!owner) return undefined;
  const rest = module.slice(owner.folder.length + 1).split('/');
  const layer = rest.length === 1 ? '.' : rest[0]!;
  return { folder: owner.folder, layer, lower: owner.lower.includes(layer) };
}

/** Imports from a lower layer's module to a feature of its own package, or (for a source) to the tools above. */
function upwardImports(graph: ImportGraph): string[] {
  const found: string[] = [];
  for (const [module, target] of arrows(graph)) {
    const from = placeOf(module);
    if (!from?.lower) continue;
    const to = placeOf(target);
    const toTools = TOOLS.some((tools) => target.startsWith(tools));
    const toFeature = to?.folder === from.folder && !to.lower && !toTools;
    if (toFeature || (toTools && !isTest(module))) found.push(`${module} -> ${target}`);
  }
  return found.sort();
}

const houseGraph = () => importGraph(sourceFiles(ROOT));

const test = suite('house import graph');

test('the checks find a circle, name it, and find upward arrows, in a small made-up house', () => {
  const graph = importGraph(
    new Map([
      ['conformance/cases/slow.ts', "import { openSession } from './streaming.ts';"],
      ['conformance/cases/streaming.ts', "import type { Case } from '../core/types.ts';\nexport * from './slow.ts';"],
      ['conformance/core/types.ts', "import { sign } from '../../test/support/sign.ts';"],
      ['conformance/core/run.test.ts', "const cases = await import('../cases/slow.ts');"],
      ['test/support/sign.ts', "import { request } from 'scribe-client';"],
      ['client/src/index.ts', "import type { Paths } from '../../generated/client/types.gen.ts';"],
      ['client/src/cli/main.ts', "import { request } from '../index.ts';"],
    ]),
  );
  const circles = importCircles(graph);
  assert.equal(circles, [['conformance/cases/slow.ts', 'conformance/cases/streaming.ts']]);
  assert.is(
    describeCircle(graph, circles[0]!),
    'conformance/cases/slow.ts -> conformance/cases/streaming.ts -> conformance/cases/slow.ts',
  );
  assert.equal(graph.get('test/support/sign.ts'), ['client/src/index.ts']);
  assert.equal(upwardImports(graph), [
    'conformance/core/run.test.ts -> conformance/cases/slow.ts',
    'conformance/core/types.ts -> test/support/sign.ts',
  ]);
});

test('no module of the house reaches itself through its imports', () => {
  const graph = houseGraph();
  const circles = importCircles(graph);
  const upward = upwardImports(graph);
  console.log(
    `${graph.size} modules, ${arrows(graph).length} import arrows, ${circles.length} circles, ` +
      `${upward.length} arrows from a lower layer up:\n  ${upward.join('\n  ')}`,
  );
  assert.ok(graph.size > 500, `read ${graph.size} modules`);
  assert.equal(
    circles.map((circle) => describeCircle(graph, circle)),
    [],
    'import circles (move what both sides need into a module of its own that neither imports back)',
  );
});

test("a lower layer's source imports no feature of its package and none of the tools above, but the settings", () => {
  const upward = upwardImports(houseGraph()).filter((arrow) => !isTest(arrow.split(' -> ')[0]!));
  assert.equal(upward, [...MEANT_UPWARD.keys()].sort());
});

test.run();
