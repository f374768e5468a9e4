#!/usr/bin/env node
// The `scribe-conformance` bin: runs the TypeScript CLI through tsx's loader (no build step).
import { register } from 'tsx/esm/api';

register();
await import('../cli.ts');
