// The workspace packages as installable tarballs inside the built site (docs/site/packages/), so a reader of the
// running server's docs can `npm install http://<server>/docs/packages/scribe-client.tgz` before they are on the
// registry. `npm pack` runs each package's prepack (scribe-client compiles to JavaScript and .d.ts in dist/,
// scribe-conformance bundles itself) and postpack (removes dist/ again); each tarball is kept under npm's name
// (`scribe-client-1.4.0.tgz`) and under a name without the version, the address the Clients page gives.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';

/** The workspaces packed, by folder. */
export const packedWorkspaces = ['client', 'conformance'];

/**
 * A lock held around every `npm pack` of the workspaces: a pack builds into the package's dist/ and removes it after,
 * so two packs at once (a docs build beside the packages test) would delete each other's build mid-way.
 */
export function packLock(root) {
  mkdirSync(join(root, 'node_modules/.cache'), { recursive: true });
  return join(root, 'node_modules/.cache/scribe-npm-pack.lock');
}

/** `npm pack` of the workspaces under the lock; returns npm's JSON report (name, version, filename, files, …). */
export function npmPack(root, destination, workspaces = packedWorkspaces) {
  const args = ['pack', ...workspaces.flatMap((w) => ['--workspace', w]), '--json', '--pack-destination', destination];
  let stdout;
  try {
    stdout = execFileSync('flock', [packLock(root), 'npm', ...args, '--loglevel=error'], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } catch (error) {
    // npm and the prepack builds say what went wrong on their output; one line of it names the cause.
    const said = `${error.stdout ?? ''}\n${error.stderr ?? ''}`;
    const cause = said.match(/error TS\d+:.*|^npm error (?!code|path|command|A complete).*$/m)?.[0] ?? error.message;
    throw new Error(`npm pack of ${workspaces.join(', ')} failed: ${cause.trim()}`, { cause: error });
  }
  return JSON.parse(stdout.slice(stdout.indexOf('[')));
}

/**
 * Packs the workspaces into `<site>/packages/`; returns what was written there. The tarballs are made in a folder of
 * this build and renamed into place, so a reader (or a test) downloading from a served site while another build runs
 * never gets half a file; tarballs of older versions are removed.
 */
export function packIntoSite(root, site) {
  const folder = join(site, 'packages');
  const staging = join(site, `.packing-${process.pid}`);
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  mkdirSync(folder, { recursive: true });
  try {
    const packed = npmPack(root, staging);
    const written = new Set();
    for (const { name, filename } of packed) {
      copyFileSync(join(staging, filename), join(staging, `${name}.tgz`));
      for (const file of [filename, `${name}.tgz`]) {
        renameSync(join(staging, file), join(folder, file));
        written.add(file);
      }
    }
    for (const file of readdirSync(folder)) if (!written.has(file)) rmSync(join(folder, file), { force: true });
    return packed.map(({ name, version, filename, size, entryCount }) => ({
      name,
      version,
      filename,
      latest: `${name}.tgz`,
      size,
      files: entryCount,
    }));
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}
