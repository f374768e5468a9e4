#!/usr/bin/env node
// The `scribe-client` bin. In the repository it runs the TypeScript CLI through tsx's loader (no build step); in the
// published package, which carries no TypeScript, it runs the CLI that `npm pack` compiled into dist/. It is a file
// of its own, present before any build, because npm checks the bin paths when it reads package.json, and for
// `npm publish` that is before prepack has built dist/ ("No bin file found at dist/…").
import { existsSync } from 'node:fs';

if (existsSync(new URL('../src/cli/main.ts', import.meta.url))) {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli/main.ts');
} else {
  await import('../dist/client/src/cli/main.js');
}
