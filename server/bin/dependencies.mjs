// Whether the project's dependencies are installed, asked before anything but Node's own modules is imported: run
// before `npm install`, the bins print one line saying so instead of Node's module-not-found stack trace.
export function requireDependencies() {
  try {
    import.meta.resolve('tsx/esm/api');
  } catch {
    console.error('scribe: the dependencies are not installed: run npm install first.');
    process.exit(1);
  }
}
