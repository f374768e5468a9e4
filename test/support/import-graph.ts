// The house's import graph, read from the sources with TypeScript's own import scanner: every module of the
// repository's TypeScript and JavaScript (server, conformance, client, scripts, bench, test, docs; tests included)
// and the modules of the repository it imports. Type-only imports, re-exports and dynamic imports with a literal
// specifier count: they tie the modules together just the same. Imports of the workspace packages by name
// (`scribe-client`) count as imports of their sources; packages, generated/ and files made at run time are left out.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative, sep } from 'node:path';
import ts from 'typescript';

/** Module (path relative to the graph's root, `/`-separated) → the modules of the graph it imports. */
export type ImportGraph = Map<string, string[]>;

/** The folders of the repository that hold its code. */
export const HOUSE_FOLDERS = ['server', 'conformance', 'client', 'scripts', 'bench', 'test', 'docs'];

/** Folders that hold no code of the house: installed, generated, built or run-time files. */
const SKIPPED_FOLDERS = new Set(['node_modules', 'generated', 'dist', 'site', 'data', 'artifacts']);

const CODE = /\.(ts|mts|cts|js|mjs|cjs)$/;
const DECLARATIONS = /\.d\.(ts|mts|cts)$/;

/** The workspace packages' names and the module a bare import of each reaches in the sources. */
export const WORKSPACE_ENTRIES: Record<string, string> = { 'scribe-client': 'client/src/index.ts' };

/** Path (relative to root, `/`-separated) → text of every code file under the folders (declarations left out). */
export function sourceFiles(root: string, folders: string[] = HOUSE_FOLDERS): Map<string, string> {
  const found = new Map<string, string>();
  const walk = (dir: string) => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!SKIPPED_FOLDERS.has(entry.name) && !entry.name.startsWith('.')) walk(path);
      } else if (CODE.test(entry.name) && !DECLARATIONS.test(entry.name)) {
        found.set(relative(root, path).split(sep).join('/'), readFileSync(path, 'utf8'));
      }
    }
  };
  for (const folder of folders) walk(join(root, folder));
  return found;
}

/** The module of `modules` that a specifier written in `from` reaches, if any (Node's and TypeScript's spellings). */
function resolveSpecifier(from: string, specifier: string, modules: Set<string>): string | undefined {
  if (!specifier.startsWith('.')) {
    const name = Object.keys(WORKSPACE_ENTRIES).find((entry) => specifier === entry);
    return name === undefined ? undefined : WORKSPACE_ENTRIES[name];
  }
  const base = normalize(join(dirname(from), specifier))
    .split(sep)
    .join('/');
  const candidates = [
    base,
    base.replace(/\.js$/, '.ts'),
    base.replace(/\.mjs$/, '.mts'),
    base.replace(/\.cjs$/, '.cts'),
    `${base}.ts`,
    `${base}/index.ts`,
  ];
  return candidates.find((candidate) => modules.has(candidate));
}

/** The graph of the given files (path → text): each module with the modules among them that it imports. */
export function importGraph(files: Map<string, string>): ImportGraph {
  const modules = new Set(files.keys());
  const graph: ImportGraph = new Map();
  for (const [file, text] of files) {
    const targets = ts
      .preProcessFile(text, true, true)
      .importedFiles.map((imported) => resolveSpecifier(file, imported.fileName, modules))
      .filter((target): target is string => target !== undefined);
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** The part of a graph inside one folder, with paths relative to it (imports leaving it left out). */
export function subgraph(graph: ImportGraph, folder: string): ImportGraph {
  const prefix = `${folder}/`;
  const inside = (module: string) => module.startsWith(prefix);
  const part: ImportGraph = new Map();
  for (const [module, targets] of graph) {
    if (!inside(module)) continue;
    part.set(
      module.slice(prefix.length),
      targets.filter(inside).map((target) => target.slice(prefix.length)),
    );
  }
  return part;
}

/** Every circle of imports, each as the modules on it (Tarjan's strongly connected components of two or more). */
export function importCircles(graph: ImportGraph): string[][] {
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

/**
 * One circle of a component as a readable line, `a.ts -> b.ts -> a.ts`: the shortest way from the component's first
 * module back to itself (a component of more modules holds several circles; this names one, the count the rest).
 */
export function describeCircle(graph: ImportGraph, component: string[]): string {
  const members = new Set(component);
  const start = component[0]!;
  const cameFrom = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const module = queue.shift()!;
    for (const target of graph.get(module) ?? []) {
      if (!members.has(target)) continue;
      if (target === start) {
        const path = [module];
        while (path[0] !== start) path.unshift(cameFrom.get(path[0]!)!);
        const more = component.length > path.length ? ` (${component.length} modules in this knot)` : '';
        return `${[...path, start].join(' -> ')}${more}`;
      }
      if (!cameFrom.has(target) && target !== start) {
        cameFrom.set(target, module);
        queue.push(target);
      }
    }
  }
  return component.join(' -> ');
}

/** Every import arrow of the graph as `from -> to`. */
export function arrows(graph: ImportGraph): Array<[string, string]> {
  return [...graph].flatMap(([module, targets]) => targets.map((target): [string, string] => [module, target]));
}
