// Runs the scenario files named on the command line one after another in this one process (tsx started once per
// generator, not once per file); each file reports its own attempts (a `MATRIX` line). A file that throws outside
// its attempts leaves its calls without an outcome (they fail) and the next file still runs.
for (const file of process.argv.slice(2)) {
  try {
    await import(new URL(file, import.meta.url).href);
  } catch (error) {
    console.error(`${file}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  }
}
