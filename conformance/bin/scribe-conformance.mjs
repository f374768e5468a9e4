#!/usr/bin/env node
// The `scribe-conformance` bin. In the repository it runs the TypeScript CLI through tsx's loader (no build step); in
// the published package, which carries no TypeScript, it runs the bundle that `npm pack` built.
import { existsSync } from 'node:fs';

if (existsSync(new URL('../cli.ts', import.meta.url))) {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../cli.ts');
} else {
  await import('../dist/conformance/core/scribe-conformance.mjs');
}
