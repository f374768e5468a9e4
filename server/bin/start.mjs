#!/usr/bin/env node
// `npm start`: the server (server/src/main.ts) through tsx's loader, no build step.
import { requireDependencies } from './dependencies.mjs';

requireDependencies();
const { register } = await import('tsx/esm/api');
register();
const { serve } = await import('../src/main.ts');
const { exitWithFatal } = await import('../src/fatal-error.ts');
await serve().catch((error) => exitWithFatal(error));
