// Reads `tsc --pretty false` output of a generator's work folder: errors inside the generated code, and errors in the
// scenario mapped to the call attempt whose code they are in. An attempt's code runs from its `await attempt(…)` line
// to the next one (or `report()`); code above the first attempt is the scenario's setup, which every attempt needs.
export interface CompileErrors {
  generated: string[];
  setup: string[];
  /** `<call> <generated|option>` → its errors. */
  byAttempt: Map<string, string[]>;
  seconds: number;
}

const ERROR = /^(.+?)\((\d+),\d+\): error (TS\d+: .*)$/;
const ATTEMPT = /await attempt\('([\w-]+)', '(generated|option)'/;

export function compileErrors(output: string, scenario: string): CompileErrors {
  const starts: { line: number; key: string }[] = [];
  let end = Infinity;
  scenario.split('\n').forEach((text, index) => {
    const found = ATTEMPT.exec(text);
    if (found) starts.push({ line: index + 1, key: `${found[1]} ${found[2]}` });
    else if (/^report\(\);/.test(text)) end = index + 1;
  });
  const result: CompileErrors = { generated: [], setup: [], byAttempt: new Map(), seconds: 0 };
  for (const text of output.split('\n')) {
    const found = ERROR.exec(text.trim());
    if (!found) continue;
    const [, file, line, message] = found;
    if (!file!.endsWith('scenario.mts')) {
      result.generated.push(`${file}(${line}): ${message}`);
      continue;
    }
    const at = Number(line);
    const owner = starts.filter((start) => start.line <= at && at < end).at(-1);
    const described = `line ${at}: ${message}`;
    if (!owner) result.setup.push(described);
    else result.byAttempt.set(owner.key, [...(result.byAttempt.get(owner.key) ?? []), described]);
  }
  return result;
}
