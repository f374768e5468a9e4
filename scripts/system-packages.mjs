// The Debian packages Scribe uses from the system, and one step that makes sure they are there: nothing happens when
// they are installed; as root with apt-get they are installed unattended; otherwise one line says what is missing and
// the exact command. It never throws and never fails the command that called it (npm install, npm test): a missing
// package is reported again, clearly, by whatever needs it.
import { spawnSync } from 'node:child_process';

/** The embedded speech engine: the PocketSphinx libraries (loaded through koffi) and its US English model. */
export const enginePackages = ['libpocketsphinx3', 'pocketsphinx-en-us'];

/** The whisper engine's runtime (@fugood/whisper.node's prebuilt library links GCC's OpenMP). */
export const whisperPackages = ['libgomp1'];

/**
 * What `npm test` needs besides the engine: the whisper engine's runtime (its tests run a synthetic model), real
 * recordings (pocketsphinx-testdata), synthetic voices for the diarization tests (espeak-ng), the browser of the docs
 * test (chromium), the Unicode font of the v2 PDF transcripts (fonts-dejavu-core) and pdftotext to read them back
 * (poppler-utils).
 */
export const testPackages = [
  ...enginePackages,
  ...whisperPackages,
  'pocketsphinx-testdata',
  'espeak-ng',
  'chromium',
  'fonts-dejavu-core',
  'poppler-utils',
];

function has(command) {
  return spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
}

/** The packages of the list that are not installed, or undefined when this is not a dpkg system. */
export function missingPackages(packages) {
  if (!has('dpkg-query')) return undefined;
  // One call for all; unknown packages make it exit 1 but the known ones are still listed.
  const result = spawnSync('dpkg-query', ['-W', '-f=${Package} ${Status}\\n', ...packages], { encoding: 'utf8' });
  const installed = new Set(
    (result.stdout ?? '')
      .split('\n')
      .filter((line) => line.endsWith(' install ok installed'))
      .map((line) => line.split(' ')[0]),
  );
  return packages.filter((name) => !installed.has(name));
}

function aptGet(args) {
  const result = spawnSync('apt-get', args, {
    encoding: 'utf8',
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = `${result.stdout ?? ''}${result.stderr ?? ''}`.trim().split('\n');
  return { ok: result.status === 0, lastLine: output.at(-1) ?? '' };
}

function install(packages) {
  const args = ['install', '-y', '-qq', '--no-install-recommends', ...packages];
  const first = aptGet(args);
  if (first.ok) return first;
  // A fresh machine or container often has no package lists yet ("Unable to locate package").
  const update = aptGet(['update', '-qq']);
  if (!update.ok) return update;
  return aptGet(args);
}

/**
 * Makes sure `packages` are installed, for `purpose` (e.g. "the speech engine"). Prints at most one line when
 * something is missing and cannot be installed here, or one line per install attempt. Returns the packages still
 * missing afterwards (empty when all is well or when this is not a Debian system and nothing can be said).
 */
export function ensurePackages(packages, purpose, log = (line) => console.log(line)) {
  try {
    const missing = missingPackages(packages);
    if (missing === undefined) {
      log(`scribe: ${purpose} uses Debian packages (${packages.join(' ')}); this system has no dpkg to check them.`);
      return [];
    }
    if (missing.length === 0) return [];
    const command = `apt-get install -y --no-install-recommends ${missing.join(' ')}`;
    const root = process.getuid?.() === 0;
    if (!root || !has('apt-get')) {
      log(
        `scribe: ${purpose} needs Debian packages that are missing: ${missing.join(' ')}. Install them with: ${root ? '' : 'sudo '}${command}`,
      );
      return missing;
    }
    log(`scribe: installing ${purpose} (${missing.join(' ')}) with apt-get …`);
    const result = install(missing);
    const still = missingPackages(missing) ?? missing;
    if (result.ok && still.length === 0) {
      log(`scribe: installed ${missing.join(' ')}.`);
      return [];
    }
    log(`scribe: could not install ${still.join(' ')} (${result.lastLine || 'apt-get failed'}); run: ${command}`);
    return still;
  } catch (error) {
    log(`scribe: could not check ${purpose}'s Debian packages (${error instanceof Error ? error.message : error}).`);
    return packages;
  }
}

// `node scripts/system-packages.mjs engine|test` (CI): the same step, failing (exit 1) when something is still missing.
if (import.meta.url === `file://${process.argv[1]}`) {
  const which = process.argv[2] === 'engine' ? enginePackages : testPackages;
  const missing = ensurePackages(which, process.argv[2] === 'engine' ? 'the speech engine' : 'the tests');
  process.exitCode = missing.length > 0 ? 1 : 0;
}
