// Command-line options of `scribe-conformance` and their defaults.
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { PHASES, type Phase } from './types.ts';

export interface RunOptions {
  baseUrl: string;
  apiKey?: string;
  publicKey?: string;
  secret?: string;
  adminToken?: string;
  openapi: string;
  asyncapi?: string;
  /** Only these checks (all when undefined). */
  checks?: string[];
  phases: Phase[];
  seed: number;
  maxExamples: number;
  include: string[];
  exclude: string[];
  profile: 'full' | 'stateless';
  junit?: string;
  ndjson?: string;
  rateLimit: 'auto' | 'off';
  /** Host the server can reach the suite's webhook receiver and media server at. */
  callbackHost: string;
  /** Seconds a task may take to reach a final state. */
  taskTimeout: number;
  progress: boolean;
  /** One line per case (phase, operation, label, status, time). */
  verbose: boolean;
  /** The checks that wait out the server's clocks or send large media (about a minute more, side by side). */
  slow: boolean;
}

const bundled = (name: string) => fileURLToPath(new URL(`../../generated/${name}`, import.meta.url));

export const USAGE = `Usage: scribe-conformance --base-url URL [options]
       scribe-conformance --rules [--json] [--spec PATH,PATH]
       scribe-conformance --rules --from-report REPORT.ndjson

  --base-url URL            server under test (required)
  --api-key KEY             v3 Bearer key (sk_live_…)
  --public-key PK --secret S  v2/v1 key pair
  --admin-token TOKEN       provision throwaway accounts, keys, balances and blocked accounts (X-Admin-Token)
  --spec PATH[,PATH]        OpenAPI JSON and AsyncAPI JSON (default: the bundled generated/*.json)
  --checks a,b              run only these checks (default: all)
  --phases a,b              ${PHASES.join(',')} (default: all)
  --seed N                  seed of the generated data (default: 1)
  --max-examples N          fuzzed cases per operation (default: 5)
  --include X,Y             only operations with these operationIds or tags
  --exclude X,Y             skip operations with these operationIds or tags
  --profile full|stateless  stateless: no stateful/streaming/SSE phases and no state-based checks (for mocks)
  --report junit=PATH,ndjson=PATH
  --rate-limit auto|off     auto: stay under the server's limit per account and honour Retry-After (default)
  --callback-host HOST      address the server reaches the suite's receivers at (default: 127.0.0.1)
  --task-timeout SECONDS    how long a transcription may take to finish (default: 120)
  --slow                    also what takes a minute: an expired stream ticket (60 s), an idle stream (4408),
                            uploads over the sync limits (25 MB, 5 minutes)
  --no-progress             plain lines even on a terminal
  --verbose                 one line per case
  --rules                   print the rule ledger (conformance/rules.yaml) with each rule's coverage and exit
  --json                    with --rules: NDJSON, one line per rule and a summary line
  --from-report PATH        with --rules: each rule's verdict in the run that wrote this NDJSON report (provoked and
                            passed or failed, or not run and why); exit 1 when a rule failed
  -h, --help                print this text and exit 0`;

/** Whether the command line asks for the usage text (`--help` or `-h` anywhere before a `--`). */
export function wantsHelp(argv: string[]): boolean {
  const end = argv.indexOf('--');
  return (end < 0 ? argv : argv.slice(0, end)).some((arg) => arg === '--help' || arg === '-h');
}

const list = (value: string | undefined) =>
  (value ?? '')
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);

export interface RulesOptions {
  json: boolean;
  openapi: string;
  asyncapi: string;
  /** An NDJSON report of a run: print that run's rule coverage instead of the ledger's. */
  fromReport?: string;
}

/** The options of `--rules`, or undefined when the command line does not ask for the ledger. */
export function parseRulesOptions(argv: string[]): RulesOptions | undefined {
  if (!argv.includes('--rules')) return undefined;
  const { values } = parseArgs({
    args: argv,
    options: {
      rules: { type: 'boolean' },
      json: { type: 'boolean' },
      spec: { type: 'string' },
      'from-report': { type: 'string' },
    },
    strict: true,
  });
  const [openapi, asyncapi] = values.spec ? list(values.spec) : [bundled('openapi.json'), bundled('asyncapi.json')];
  if (!openapi || !asyncapi) throw new UsageError('--rules needs both documents: --spec OPENAPI,ASYNCAPI');
  return { json: Boolean(values.json), openapi, asyncapi, fromReport: values['from-report'] };
}

export function parseOptions(argv: string[]): RunOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      'base-url': { type: 'string' },
      'api-key': { type: 'string' },
      'public-key': { type: 'string' },
      secret: { type: 'string' },
      'admin-token': { type: 'string' },
      spec: { type: 'string' },
      checks: { type: 'string' },
      phases: { type: 'string' },
      seed: { type: 'string' },
      'max-examples': { type: 'string' },
      include: { type: 'string' },
      exclude: { type: 'string' },
      profile: { type: 'string' },
      report: { type: 'string' },
      'rate-limit': { type: 'string' },
      'callback-host': { type: 'string' },
      'task-timeout': { type: 'string' },
      'no-progress': { type: 'boolean' },
      verbose: { type: 'boolean' },
      slow: { type: 'boolean' },
    },
    strict: true,
  });
  if (!values['base-url']) throw new UsageError(`--base-url is required\n\n${USAGE}`);
  const [openapi, asyncapi] = values.spec ? list(values.spec) : [bundled('openapi.json'), bundled('asyncapi.json')];
  const phases = values.phases ? list(values.phases) : [...PHASES];
  for (const phase of phases)
    if (!(PHASES as readonly string[]).includes(phase)) throw new UsageError(`unknown phase ${phase}`);
  const profile = values.profile ?? 'full';
  if (profile !== 'full' && profile !== 'stateless') throw new UsageError('--profile is full or stateless');
  const rateLimit = values['rate-limit'] ?? 'auto';
  if (rateLimit !== 'auto' && rateLimit !== 'off') throw new UsageError('--rate-limit is auto or off');
  const reports = Object.fromEntries(list(values.report).map((r) => r.split('=', 2) as [string, string]));
  for (const kind of Object.keys(reports))
    if (kind !== 'junit' && kind !== 'ndjson') throw new UsageError(`unknown report ${kind}`);
  const number = (name: string, value: string | undefined, fallback: number) => {
    const parsed = value === undefined ? fallback : Number(value);
    if (!Number.isInteger(parsed) || parsed < 0) throw new UsageError(`--${name} must be a whole number`);
    return parsed;
  };
  return {
    baseUrl: values['base-url'].replace(/\/+$/, ''),
    apiKey: values['api-key'],
    publicKey: values['public-key'],
    secret: values.secret,
    adminToken: values['admin-token'],
    openapi: openapi!,
    asyncapi,
    checks: values.checks ? list(values.checks) : undefined,
    phases: phases as Phase[],
    seed: number('seed', values.seed, 1),
    maxExamples: number('max-examples', values['max-examples'], 5),
    include: list(values.include),
    exclude: list(values.exclude),
    profile,
    junit: reports.junit,
    ndjson: reports.ndjson,
    rateLimit,
    callbackHost: values['callback-host'] ?? '127.0.0.1',
    taskTimeout: number('task-timeout', values['task-timeout'], 120),
    progress: !values['no-progress'] && !values.verbose && Boolean(process.stdout.isTTY) && !process.env.CI,
    verbose: Boolean(values.verbose),
    slow: Boolean(values.slow),
  };
}

export class UsageError extends Error {
  override name = 'UsageError';
}
