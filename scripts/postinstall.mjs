// `npm install`'s last step: sets up the embedded speech engine (Debian's PocketSphinx) when it can do so unattended,
// or says in one line what is missing and the command that installs it. It never fails the install: the server starts
// without the engine (transcription answers 503 engine_unavailable until it is installed).
import { enginePackages, ensurePackages } from './system-packages.mjs';

try {
  ensurePackages(enginePackages, 'the speech engine (PocketSphinx)');
} catch {
  // ensurePackages reports its own problems; nothing here may fail npm install.
}
process.exitCode = 0;
