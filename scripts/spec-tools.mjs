// Small helpers shared by the spec scripts (lint, generate, docs): run the Redocly CLI quietly and read the documents.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import YAML from 'yaml';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Runs `redocly <args>` from the project root with telemetry off; returns stdout, throws with the output on failure. */
export function redocly(args) {
  const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' };
  try {
    return execFileSync(join(root, 'node_modules/.bin/redocly'), args, {
      cwd: root,
      env,
      encoding: 'utf8',
      stdio: 'pipe',
    });
  } catch (error) {
    const output = `${error.stdout ?? ''}${error.stderr ?? ''}`;
    throw new Error(`redocly ${args.join(' ')} failed:\n${output}`, { cause: error });
  }
}

export function readYaml(path) {
  return YAML.parse(readFileSync(join(root, path), 'utf8'));
}
