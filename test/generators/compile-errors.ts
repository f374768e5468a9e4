// Reads `tsc --pretty false` output of a generator's work folder: errors inside the generated code, and errors in the
// scenario files mapped to the call attempt whose code they are in. An attempt's code runs from its
// `await attempt(…)` line to the next one (or `report()`); code above a file's first attempt is that file's setup,
// which every attempt of the file needs, so its errors count against each of them.
export interface CompileErrors {
  generated: string[];
  setup: string[];
  /** `<call> <generated|option>` → its errors (its file's setup errors included). */
  byAttempt: Map<string, string[]>;
  seconds: number;
}

const ERROR = /^(.+?)\((\d+),\d+\): error (TS\d+: .*)$/;
const ATTEMPT = /await attempt\('([\w-]+)', '(generated|option)'/;

/** `scenarios`: file name in the work folder → its text. */
export function compileErrors(output: string, scenarios: Record<string, string>): CompileErrors {
  const attempts = new Map<string, { starts: { line: number; key: string }[]; end: number }>();
  for (const [file, text] of Object.entries(scenarios)) {
    const starts: { line: number; key: string }[] = [];
    let end = Infinity;
    text.split('\n').forEach((line, index) => {
      const found = ATTEMPT.exec(line);
      if (found) starts.push({ line: index + 1, key: `${found[1]} ${found[2]}` });
      else if (/^report\(\);/.test(line)) end = index + 1;
    });
    attempts.set(file, { starts, end });
  }
  const result: CompileErrors = { generated: [], setup: [], byAttempt: new Map(), seconds: 0 };
  const add = (key: string, error: string) => result.byAttempt.set(key, [...(result.byAttempt.get(key) ?? []), error]);
  for (const text of output.split('\n')) {
    const found = ERROR.exec(text.trim());
    if (!found) continue;
    const [, file, line, message] = found;
    const scenario = attempts.get(file!);
    if (!scenario) {
      result.generated.push(`${file}(${line}): ${message}`);
      continue;
    }
    const at = Number(line);
    const described = `${file}:${at}: ${message}`;
    const owner = scenario.starts.filter((start) => start.line <= at && at < scenario.end).at(-1);
    if (owner) add(owner.key, described);
    else {
      result.setup.push(described);
      for (const start of scenario.starts) add(start.key, described);
    }
  }
  return result;
}
