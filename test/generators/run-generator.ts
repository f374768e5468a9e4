// One generator's run in the matrix: a work folder (the node_modules of the generator's install folder linked in, the
// scenario, its harness and scribe-client's signing helper copied), the generator run on the contract, `tsc --strict`
// over the generated code and the scenario, then the scenario against the server; each call's status taken from both.
import { copyFileSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { runToEnd } from '../support/processes.ts';
import { compileErrors, type CompileErrors } from './compile-errors.ts';
import { CALLS, OPERATION_CALLS, type Call, type Status } from './expected.ts';
import { CONTRACT, type Generator } from './generators.ts';

const here = new URL('./', import.meta.url).pathname;
const root = new URL('../../', import.meta.url).pathname;
const TSX = pathToFileURL(join(root, 'node_modules/tsx/dist/loader.mjs')).href;

export interface Outcome {
  call: string;
  attempt: 'generated' | 'option';
  ok: boolean;
  detail: string;
}
export interface GeneratorRun {
  generator: Generator;
  generated: { code: number | null; output: string; seconds: number };
  compile: CompileErrors;
  outcomes: Outcome[];
  ran: { code: number | null; stderr: string; seconds: number };
  statuses: Record<Call, Status>;
  details: Partial<Record<Call, string>>;
}

const TSCONFIG = {
  compilerOptions: {
    target: 'ES2023',
    lib: ['ES2023', 'DOM', 'DOM.Iterable'],
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    strict: true,
    noEmit: true,
    allowImportingTsExtensions: true,
    skipLibCheck: true,
    types: ['node'],
  },
};

/** One generator: generate, compile strict, run the scenario; each step's output kept for the report. */
/** The operationIds of the contract the generators read. */
function operationIds(): Set<string> {
  const contract = JSON.parse(readFileSync(CONTRACT, 'utf8')) as { paths: Record<string, Record<string, unknown>> };
  return new Set(
    Object.values(contract.paths).flatMap((item) =>
      Object.values(item).flatMap((operation) =>
        typeof operation === 'object' && operation && 'operationId' in operation ? [String(operation.operationId)] : [],
      ),
    ),
  );
}

export async function runGenerator(
  generator: Generator,
  work: string,
  env: Record<string, string>,
): Promise<GeneratorRun> {
  const dir = join(work, generator.id);
  mkdirSync(join(dir, 'scribe-client'), { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ private: true, type: 'module' }));
  const install = generator.install ?? here;
  symlinkSync(join(install, 'node_modules'), join(dir, 'node_modules'));
  copyFileSync(join(here, 'scenarios/harness.mts'), join(dir, 'harness.mts'));
  copyFileSync(join(here, 'scenarios/run-scenarios.mts'), join(dir, 'run-scenarios.mts'));
  const scenarioId = generator.scenarios ?? generator.id;
  copyFileSync(join(here, `scenarios/${scenarioId}.scenario.mts`), join(dir, 'scenario.mts'));
  const operations = operationIds();
  const absent = new Set(
    Object.entries(OPERATION_CALLS)
      .filter(([, operation]) => !operations.has(operation))
      .map(([call]) => call),
  );
  const scenarios = ['scenario.mts'];
  for (const call of Object.keys(OPERATION_CALLS).filter((call) => !absent.has(call))) {
    copyFileSync(join(here, `scenarios/${scenarioId}.${call}.mts`), join(dir, `${call}.mts`));
    scenarios.push(`${call}.mts`);
  }
  // scribe-client's signing helper, as its source (the package is not built in the tree).
  for (const file of ['sign-v2-request.ts', 'bytes.ts'])
    copyFileSync(join(root, 'client/src', file), join(dir, 'scribe-client', file));
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ ...TSCONFIG, files: scenarios }, null, 2));

  let started = performance.now();
  const made = await generator.generate(dir, env.SCRIBE_BASE_URL!);
  const generated = {
    code: made.code,
    output: `${made.stdout}${made.stderr}`,
    seconds: (performance.now() - started) / 1000,
  };
  started = performance.now();
  const tsc = await runToEnd(
    process.execPath,
    [join(install, 'node_modules/typescript/bin/tsc'), '-p', dir, '--pretty', 'false'],
    {
      cwd: dir,
    },
  );
  const compile = compileErrors(
    `${tsc.stdout}${tsc.stderr}`,
    Object.fromEntries(scenarios.map((file) => [file, readFileSync(join(dir, file), 'utf8')])),
  );
  compile.seconds = (performance.now() - started) / 1000;
  started = performance.now();
  // All of a generator's scenario files in one process, one after another (a process each cost more than the calls).
  const scenario = await runToEnd(process.execPath, ['--import', TSX, 'run-scenarios.mts', ...scenarios], {
    cwd: dir,
    env: { ...process.env, ...env },
    timeoutMs: 600_000,
  });
  const outcomes = scenario.stdout
    .split('\n')
    .filter((text) => text.startsWith('MATRIX '))
    .flatMap((line) => JSON.parse(line.slice('MATRIX '.length)) as Outcome[]);
  const { stderr, code } = scenario;
  const ran = { code, stderr, seconds: (performance.now() - started) / 1000 };
  const statuses = {} as Record<Call, Status>;
  const details: Partial<Record<Call, string>> = {};
  for (const call of CALLS) {
    const reasons: string[] = [];
    /** Whether an attempt ran well and its code compiled; why not goes to the call's details. */
    const works = (kind: Outcome['attempt']) => {
      const outcome = outcomes.find((o) => o.call === call && o.attempt === kind);
      if (!outcome) return false;
      const uncompiled = compile.byAttempt.get(`${call} ${kind}`) ?? [];
      if (!outcome.ok) reasons.push(`${kind}: ${outcome.detail}`);
      if (uncompiled.length > 0) reasons.push(`${kind}: does not compile: ${uncompiled[0]}`);
      return outcome.ok && uncompiled.length === 0;
    };
    if (absent.has(call)) {
      statuses[call] = 'absent';
      continue;
    }
    statuses[call] = works('generated') ? 'works' : works('option') ? 'option' : 'fails';
    if (statuses[call] !== 'works')
      details[call] = reasons.length > 0 ? reasons.join(' | ') : 'no outcome (the scenario stopped before it)';
  }
  return { generator, generated, compile, outcomes, ran, statuses, details };
}
