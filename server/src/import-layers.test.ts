// The server's import graph stays layered: the shared infrastructure (LOWER_LAYERS) imports no feature folder, so a
// feature can be changed or removed without the database, HTTP or media code following it, and no module of
// server/src reaches itself through its imports. The graph is read from the sources with TypeScript's own import
// scanner (type-only imports, re-exports and dynamic imports count: they tie the modules together just the same).
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';

const SRC = dirname(fileURLToPath(import.meta.url));

/** Folders every part of the server builds on; each may import only these (and what lies outside server/src). */
const LOWER_LAYERS = new Set(['db', 'http', 'media', 'background', 'workers', 'secrets']);

/**
 * The modules above the lower layers that lower layers still reach, each with why: config.ts is the settings root (the
 * database and the server key read their settings from it), and it reads the chat models' settings from
 * chat/config.ts, plain parsing kept beside the chat engines that use it.
 */
const REACHED_ABOVE = ['chat/config.ts', 'config.ts'];

/** Module (path relative to server/src) → the modules of server/src it imports. */
type ImportGraph = Map<string, string[]>;

function sourceFiles(dir: string, found: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) sourceFiles(path, found);
    else if (entry.name.endsWith('.ts')) found.push(path);
  }
  return found;
}

/** The server/src modules each module imports; specifiers that leave server/src (packages, generated/) are left out. */
function importGraph(files: Map<string, string>): ImportGraph {
  const graph: ImportGraph = new Map();
  for (const [file, text] of files) {
    const targets = ts
      .preProcessFile(text, true, true)
      .importedFiles.map((imported) => imported.fileName)
      .filter((specifier) => specifier.startsWith('.'))
      .map((specifier) => normalize(join(dirname(file), specifier)))
      .filter((target) => !target.startsWith('..'));
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

const layerOf = (module: string): string => module.split('/')[0]!;

const isLowerSource = (module: string) => LOWER_LAYERS.has(layerOf(module)) && !module.endsWith('.test.ts');

/** Imports from a lower layer's module (tests excepted: they may use the harness) to anything above the lower layers. */
function upwardImports(graph: ImportGraph): string[] {
  const found: string[] = [];
  for (const [module, targets] of graph) {
    if (!isLowerSource(module)) continue;
    for (const target of targets) {
      if (!LOWER_LAYERS.has(layerOf(target)) && !REACHED_ABOVE.includes(target)) found.push(`${module} -> ${target}`);
    }
  }
  return found;
}

/** The modules above the lower layers that the lower layers' modules import directly or through others. */
function reachedAbove(graph: ImportGraph): string[] {
  const reached = new Set<string>();
  const pending = [...graph.keys()].filter(isLowerSource);
  for (let module = pending.pop(); module !== undefined; module = pending.pop()) {
    for (const target of graph.get(module) ?? []) {
      if (reached.has(target) || isLowerSource(target)) continue;
      reached.add(target);
      pending.push(target);
    }
  }
  return [...reached].sort();
}

/** Every circle of imports, each as the modules on it (Tarjan's strongly connected components of two or more). */
function importCircles(graph: ImportGraph): string[][] {
  const index = new Map<string, number>();
  const lowLink = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  const visit = (module: string) => {
    index.set(module, index.size);
    lowLink.set(module, index.get(module)!);
    stack.push(module);
    onStack.add(module);
    for (const target of graph.get(module) ?? []) {
      if (!index.has(target)) {
        visit(target);
        lowLink.set(module, Math.min(lowLink.get(module)!, lowLink.get(target)!));
      } else if (onStack.has(target)) {
        lowLink.set(module, Math.min(lowLink.get(module)!, index.get(target)!));
      }
    }
    if (lowLink.get(module) !== index.get(module)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== module);
    if (component.length > 1 || (graph.get(module) ?? []).includes(module)) circles.push(component.reverse());
  };
  for (const module of graph.keys()) if (!index.has(module)) visit(module);
  return circles;
}

const serverGraph = () =>
  importGraph(new Map(sourceFiles(SRC).map((path) => [relative(SRC, path), readFileSync(path, 'utf8')])));

const test = suite('import layers');

test('the checks find an upward import, what it reaches, a circle and a type-only import in a small made-up tree', () => {
  const graph = importGraph(
    new Map([
      ['http/auth.ts', "import type { KeyService } from '../keys/service.ts';\nimport { a } from './a.ts';"],
      ['http/a.ts', "export { b } from './b.ts';"],
      ['http/b.ts', "const a = await import('./auth.ts');"],
      ['http/auth.test.ts', "import { h } from '../test-support/harness.ts';"],
      ['db/database.ts', "import type { Config } from '../config.ts';\nimport knex from 'knex';"],
      ['keys/service.ts', "import { errors } from '../http/api-error.ts';"],
    ]),
  );
  assert.equal(upwardImports(graph), ['http/auth.ts -> keys/service.ts']);
  assert.equal(importCircles(graph), [['http/auth.ts', 'http/a.ts', 'http/b.ts']]);
  assert.equal(reachedAbove(graph), ['config.ts', 'keys/service.ts']);
});

test('the lower layers import no feature: db/, http/, media/, background/, workers/, secrets/', () => {
  const graph = serverGraph();
  assert.ok(graph.size > 100, `read ${graph.size} modules of server/src`);
  assert.equal(upwardImports(graph), []);
});

test('through their imports the lower layers reach nothing above them but the settings', () => {
  assert.equal(reachedAbove(serverGraph()), REACHED_ABOVE);
});

test('no module of server/src reaches itself through its imports', () => {
  assert.equal(importCircles(serverGraph()), []);
});

test.run();
