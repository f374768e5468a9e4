// The server's import graph stays layered: the shared infrastructure (LOWER_LAYERS) imports no feature folder, so a
// feature can be changed or removed without the database, HTTP or media code following it. The graph is read from the
// sources with TypeScript's own import scanner (test/support/import-graph.ts: type-only imports, re-exports and
// dynamic imports count, they tie the modules together just the same); test/architecture/import-graph.test.ts keeps
// the whole house, the server included, free of import circles.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { importGraph, sourceFiles, subgraph, type ImportGraph } from '../../test/support/import-graph.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');

/** Folders every part of the server builds on; each may import only these (and what lies outside server/src). */
const LOWER_LAYERS = new Set(['db', 'http', 'media', 'background', 'workers', 'secrets']);

/**
 * The modules above the lower layers that lower layers still reach, each with why: config.ts is the settings root (the
 * database and the server key read their settings from it), and it reads the chat models' settings from
 * chat/config.ts, plain parsing kept beside the chat engines that use it.
 */
const REACHED_ABOVE = ['chat/config.ts', 'config.ts'];

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

const serverGraph = () => subgraph(importGraph(sourceFiles(ROOT, ['server'])), 'server/src');

const test = suite('import layers');

test('the checks find an upward import, what it reaches and a type-only import in a small made-up tree', () => {
  const graph = importGraph(
    new Map([
      ['http/auth.ts', "import type { KeyService } from '../keys/service.ts';\nimport { a } from './a.ts';"],
      ['http/a.ts', "export { b } from './b.ts';"],
      ['http/b.ts', "const a = await import('./auth.ts');"],
      ['http/auth.test.ts', "import { h } from '../test-support/harness.ts';"],
      ['db/database.ts', "import type { Config } from '../config.ts';\nimport knex from 'knex';"],
      ['keys/service.ts', "import { errors } from '../http/api-error.ts';"],
      ['http/api-error.ts', ''],
      ['config.ts', ''],
      ['test-support/harness.ts', "import { createApp } from '../app.ts';"],
    ]),
  );
  assert.equal(upwardImports(graph), ['http/auth.ts -> keys/service.ts']);
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

test.run();
