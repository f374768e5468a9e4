#!/usr/bin/env node
// The `scribe` bin: runs the TypeScript CLI through tsx's loader (no build step).
import { requireDependencies } from './dependencies.mjs';

requireDependencies();
const { register } = await import('tsx/esm/api');
register();
await import('../src/cli.ts');
