// Test folders with a package.json of their own that pins third-party releases (client generators, OpenAI client
// libraries), installed from the registry by the test that uses them when missing, so the repository's own install
// stays free of them.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runToEnd } from './processes.ts';

/** Whether a folder has each of its package.json's pins installed at that version. */
export function pinsInstalled(folder: string): boolean {
  const manifest = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
  };
  return Object.entries(manifest.dependencies).every(([name, version]) => {
    const installed = join(folder, 'node_modules', name, 'package.json');
    return (
      existsSync(installed) && (JSON.parse(readFileSync(installed, 'utf8')) as { version: string }).version === version
    );
  });
}

/** Installs a folder's pins unless they are there; the seconds it took (0 when nothing was to do). */
export async function installPins(folder: string): Promise<number> {
  if (pinsInstalled(folder)) return 0;
  const started = performance.now();
  const done = await runToEnd('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd: folder,
    timeoutMs: 600_000,
  });
  if (done.code !== 0) throw new Error(`npm install in ${folder} failed (exit ${done.code}): ${done.stderr}`);
  return (performance.now() - started) / 1000;
}
