// `npm install`'s last step: sets up the embedded speech engine (Debian's PocketSphinx) and the sample recordings the
// README and the guides transcribe (pocketsphinx-testdata) and the Whisper engine's OpenMP runtime (libgomp1) when it can do so unattended, or says in one line each
// what is missing and the command that installs it; then one line on what to do next. It never fails the install:
// the server starts without the engine (transcription answers 503 engine_unavailable until it is installed).
import { enginePackages, ensurePackages, whisperPackages } from './system-packages.mjs';

/** The recordings the README's and the guides' commands use. */
export const SAMPLES = '/usr/share/pocketsphinx/test/data';
export const samplePackages = ['pocketsphinx-testdata'];

/** The steps, with the package step and the output passed in (a test runs them without apt-get). */
export function postinstall({ ensure = ensurePackages, log = (line) => console.log(line) } = {}) {
  const engine = ensure(enginePackages, 'the speech engine (PocketSphinx)', log);
  const samples = ensure(samplePackages, `the sample recordings of the README and the guides (${SAMPLES})`, log);
  const whisper = ensure(whisperPackages, 'the Whisper engine (SCRIBE_WHISPER_MODEL)', log);
  const missing = [...engine, ...samples, ...whisper];
  log(
    missing.length === 0
      ? `scribe: ready. npm start serves http://127.0.0.1:8080 (docs at /docs/ after npm run docs); sample recordings are in ${SAMPLES}.`
      : 'scribe: npm start works now; install what is listed above for transcription and the sample recordings.',
  );
}

if (import.meta.url === `file://${process.argv[1]}`) {
  try {
    postinstall();
  } catch {
    // ensurePackages reports its own problems; nothing here may fail npm install.
  }
  process.exitCode = 0;
}
