// The `scribe` command: `scribe serve` starts the server; `scribe migrate` brings the database to the latest schema and
// exits (a deployment of several nodes runs it once before starting them); `scribe admin …` runs the admin operations
// directly on the database configured by the same environment as the server (SCRIBE_DATA_DIR or DATABASE_URL). It is
// the operator's tool: talking to a running server as a user would (stream, transcribe, chat) is scribe-client's CLI,
// and asking this one for it says where that is. `scribe secrets …` re-seals stored secrets after a key rotation.
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import type { App } from './app.ts';
import { loadConfig } from './config.ts';
import { migrateToLatest, openDatabase } from './db/database.ts';
import { checkDatabaseAnswers } from './database-preflight.ts';
import { exitWithFatal } from './fatal-error.ts';
import { modelsCommand, modelsUsage } from './chat/models-cli.ts';
import { pullCommand, pullUsage } from './transcriptions/engine/whisper/pull-cli.ts';
import { secretsCommand, secretsUsage } from './secrets-cli.ts';

/** Commands of the client CLI that users reach for here first, and where to run them. */
const CLIENT_COMMANDS = new Set(['stream', 'transcribe', 'chat']);
const clientCli = (command: string) =>
  `npm run -s scribe-client -- ${command} … (the scribe-client CLI: client/README.md)`;

const usage = `Usage:
  scribe serve
  scribe migrate
  scribe admin account create [--balance N] [--currency RUB] [--name NAME] [--credit-limit N] [--overdraft] [--json]
  scribe admin account topup ACCOUNT_ID --amount N [--adjust] [--description TEXT] [--json]
  scribe admin account block ACCOUNT_ID [--json]
  scribe admin account unblock ACCOUNT_ID [--json]
  scribe admin account show ACCOUNT_ID [--json]
  scribe admin key issue ACCOUNT_ID [--name NAME] [--json]
  scribe admin key-pair issue ACCOUNT_ID [--json]
  ${modelsUsage}
  ${pullUsage}
  ${secretsUsage}

Streaming, transcribing and chatting with a running server: ${clientCli('stream|transcribe|chat')}.`;

const options = {
  balance: { type: 'string' },
  amount: { type: 'string' },
  currency: { type: 'string' },
  name: { type: 'string' },
  'credit-limit': { type: 'string' },
  overdraft: { type: 'boolean' },
  adjust: { type: 'boolean' },
  description: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** A command line that cannot be run as typed: its message (and the usage) is all that is printed. */
class UsageError extends Error {}

function number(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  const parsed = Number(value);
  if (!Number.isFinite(parsed)) throw new UsageError(`--${name} must be a number, got "${value}"`);
  return parsed;
}

function print(value: object, json: boolean | undefined, text: string): void {
  console.log(json ? JSON.stringify(value) : text);
}

async function admin(app: App, args: string[], flags: ReturnType<typeof parse>['values']): Promise<void> {
  const { accounts, keys } = app.services;
  const [noun, verb, id] = args;
  const need = () => {
    if (!id) throw new UsageError(`${noun} ${verb} needs an account id\n${usage}`);
    return id;
  };
  switch (`${noun} ${verb}`) {
    case 'account create': {
      const created = await accounts.create({
        balance: number(flags.balance, 'balance'),
        currency: flags.currency,
        name: flags.name,
        credit_limit: number(flags['credit-limit'], 'credit-limit'),
        overdraft_enabled: flags.overdraft,
      });
      const summary = {
        account_id: created.account.id,
        api_key: created.api_key,
        public_key: created.public_key,
        secret: created.secret,
      };
      print(
        summary,
        flags.json,
        Object.entries(summary)
          .map(([k, v]) => `${k}: ${v}`)
          .join('\n'),
      );
      return;
    }
    case 'account topup': {
      const amount = number(flags.amount, 'amount');
      if (amount === undefined) throw new UsageError('account topup needs --amount');
      const account = await accounts.topUp(
        need(),
        flags.adjust ? 'adjust' : 'topup',
        amount,
        flags.description ?? null,
      );
      print(account, flags.json, `balance: ${account.balance} ${account.currency}`);
      return;
    }
    case 'account block':
    case 'account unblock': {
      const account = await accounts.setBlocked(need(), verb === 'block');
      print(account, flags.json, `blocked: ${account.blocked}`);
      return;
    }
    case 'account show': {
      const account = await accounts.get(need());
      print(account, flags.json, JSON.stringify(account, null, 2));
      return;
    }
    case 'key issue': {
      await accounts.existing(need());
      const key = await keys.issueApiKey(need(), flags.name ?? null);
      print(key, flags.json, `api_key: ${key.secret}`);
      return;
    }
    case 'key-pair issue': {
      await accounts.existing(need());
      const pair = await keys.issueKeyPair(need());
      print(pair, flags.json, `public_key: ${pair.public_key}\nsecret: ${pair.secret}`);
      return;
    }
    default:
      throw new UsageError(`Unknown command: admin ${args.join(' ')}\n${usage}`);
  }
}

/** Applies the migrations not yet applied and says which; knex's migration lock keeps two at once from clashing. */
async function migrate(): Promise<number> {
  const config = loadConfig();
  await checkDatabaseAnswers(config.databaseUrl);
  const db = openDatabase(config);
  try {
    const [, applied] = await migrateToLatest(db);
    console.log(applied.length ? `scribe: applied ${applied.join(', ')}` : 'scribe: the database is up to date');
    return 0;
  } finally {
    await db.destroy();
  }
}

function parse(argv: string[]) {
  return parseArgs({ args: argv, options, allowPositionals: true, strict: true });
}

export async function main(argv = process.argv.slice(2)): Promise<number> {
  if (CLIENT_COMMANDS.has(argv[0] ?? ''))
    throw new UsageError(`${argv[0]} is not a command of the server's CLI: use ${clientCli(argv[0]!)}`);
  if (argv[0] === 'models' && argv[1] === 'pull') return pullCommand(argv.slice(2));
  if (argv[0] === 'models') return modelsCommand(argv.slice(1));
  const { values, positionals } = parse(argv);
  const [command, ...rest] = positionals;
  if (values.help || !command) {
    console.log(usage);
    return values.help ? 0 : 1; // asked-for help is an answer; no command at all is bad usage
  }
  if (command === 'serve') {
    const { serve } = await import('./main.ts');
    await serve();
    return -1;
  }
  if (command === 'migrate') return migrate();
  if (command === 'secrets') {
    const code = await secretsCommand(rest[0]);
    if (code === undefined) throw new UsageError(`Unknown command: secrets ${rest.join(' ')}\n${usage}`);
    return code;
  }
  if (command !== 'admin') throw new UsageError(`Unknown command: ${command}\n${usage}`);
  const config = loadConfig();
  await checkDatabaseAnswers(config.databaseUrl);
  // The app (every feature and its dependencies) is loaded only by the commands that use it: `models` and `migrate`
  // start in a fraction of the time, and a bad setting is reported before any of it loads.
  const { createApp } = await import('./app.ts');
  const app = await createApp(config, { logger: pino({ level: 'silent' }) });
  try {
    await admin(app, rest, values);
    return 0;
  } finally {
    await app.close();
  }
}

main().then(
  (code) => {
    if (code >= 0) process.exitCode = code;
  },
  (error: unknown) => {
    // parseArgs' own errors (unknown option, missing value) are usage errors too.
    const usageError =
      error instanceof UsageError || String((error as { code?: unknown })?.code ?? '').startsWith('ERR_PARSE_ARGS');
    if (!usageError) exitWithFatal(error);
    console.error(`scribe: ${(error as Error).message}`);
    process.exitCode = 1;
  },
);
