// A reference server as its own process (`node --import tsx server/src/main.ts`) on a fresh database, for tests that
// need a real process: a chain of two servers, a README command run against a server, a kill and restart. Several
// processes can share one PostgreSQL database (`joinDatabase`), each with its own data dir, as on separate machines.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChatCompletion, ChatCompletionRequest } from '../../../generated/client/types.gen.ts';
import { freePort, startProcess, type Started } from '../../../test/support/processes.ts';
import { ADMIN_TOKEN, freshDatabase, type DatabaseKind } from './test-databases.ts';

const root = new URL('../../../', import.meta.url).pathname;

export interface ScribeProcess {
  base: string;
  process: Started;
  /** Its PostgreSQL database (for another process to join); undefined on SQLite. */
  databaseUrl: string | undefined;
  /** Stops the process and drops its database (a joined database is left to its creator). */
  stop(): Promise<void>;
}

export interface StartOptions {
  /** Runs on this existing PostgreSQL database (another process's) with a data dir of its own, instead of a fresh one. */
  joinDatabase?: string;
}

/** A data dir of its own on the given PostgreSQL database, which stays when the process stops. */
function joinedDatabase(url: string): { env: Record<string, string>; drop(): Promise<void> } {
  const dataDir = mkdtempSync(join(tmpdir(), 'scribe-test-joined-'));
  return {
    env: { SCRIBE_DATA_DIR: dataDir, DATABASE_URL: url },
    drop: async () => rmSync(dataDir, { recursive: true, force: true }),
  };
}

/** Starts a server and resolves once it listens; `env` adds or overrides settings (SCRIBE_*). */
export async function startScribe(
  kind: DatabaseKind,
  env: Record<string, string> = {},
  options: StartOptions = {},
): Promise<ScribeProcess> {
  const database = options.joinDatabase ? joinedDatabase(options.joinDatabase) : await freshDatabase(kind);
  const port = await freePort();
  try {
    const started = await startProcess(
      process.execPath,
      ['--import', 'tsx', join(root, 'server/src/main.ts')],
      /Scribe is listening/,
      // Usually a few seconds; one loaded CI run (test files 5–10 × slower than alone) needed more than 60.
      180_000,
      {
        ...database.env,
        PORT: String(port),
        NODE_ENV: 'test',
        LOG_LEVEL: 'info', // the readiness line
        SCRIBE_ADMIN_TOKEN: ADMIN_TOKEN,
        SCRIBE_SECRET_KEY: '62f6fa09e8c24515a8197142ac5f65b2d7451c2b5a473f9cd7bd9030469e54eb',
        SCRIBE_WORKERS: '1',
        SCRIBE_JOB_POLL_MS: '200',
        SCRIBE_RATE_LIMIT_RPS: '1000',
        ...env,
      },
    );
    return {
      base: `http://127.0.0.1:${port}`,
      process: started,
      databaseUrl: database.env.DATABASE_URL,
      async stop() {
        try {
          await started.stop();
        } finally {
          await database.drop();
        }
      },
    };
  } catch (error) {
    await database.drop();
    throw error;
  }
}

/** An account with a v3 key, made through the admin surface of a server started by startScribe. */
export async function createAccountOn(base: string, balance: number): Promise<{ id: string; apiKey: string }> {
  const created = await fetch(`${base}/admin/accounts`, {
    method: 'POST',
    headers: { 'X-Admin-Token': ADMIN_TOKEN, 'Content-Type': 'application/json' },
    body: JSON.stringify({ balance }),
  });
  const text = await created.text();
  if (created.status !== 201) throw new Error(`account create: ${created.status} ${text}`);
  const body = JSON.parse(text) as { account: { id: string }; api_key: string };
  return { id: body.account.id, apiKey: body.api_key };
}

/** The text of a chat request answered in one piece (no stream) by a server started by startScribe. */
export async function chatAnswerOn(base: string, apiKey: string, request: ChatCompletionRequest): Promise<string> {
  const answered = await fetch(`${base}/v3/chat/completions`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ ...request, stream: false }),
  });
  const text = await answered.text();
  if (answered.status !== 200) throw new Error(`chat completion: ${answered.status} ${text}`);
  return (JSON.parse(text) as ChatCompletion).choices[0]!.message.content ?? '';
}
