// Test harness of the server tests: starts the real app in-process (createApp + listen on a free port) in test mode
// (response validation on) on a fresh SQLite data dir or a fresh PostgreSQL database, and talks to it over real HTTP.
// Every response goes through the client-side contract check (contract-check.ts), so a violation fails the test.
// Every server test file runs its suite once per database kind: `for (const kind of databaseKinds) { ... }`.
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Test } from 'uvu';
import { signV2Request } from '../../../client/src/sign-v2-request.ts';
import type { AccountCreated, AccountCreateRequest } from '../../../generated/client/types.gen.ts';
import { createApp, type App } from '../app.ts';
import { loadConfig } from '../config.ts';
import type { Database, DatabaseKind } from '../db/database.ts';
import { checkResponse } from './contract-check.ts';
import { ADMIN_TOKEN, freshDatabase } from './test-databases.ts';

export {
  ADMIN_TOKEN,
  databaseKinds,
  freshDatabase,
  POSTGRES_ADMIN_URL,
  postgresAdminUrl,
  type DatabaseKind,
} from './test-databases.ts';

/** The server's clock for HMAC skew checks; real time unless a test freezes or shifts it. */
export interface Clock {
  now(): number;
  /** Freezes the clock at `ms` (epoch milliseconds). */
  freeze(ms: number): void;
  /** Back to real time. */
  reset(): void;
}

export function createClock(): Clock {
  let frozen: number | undefined;
  return {
    now: () => frozen ?? Date.now(),
    freeze: (ms) => {
      frozen = ms;
    },
    reset: () => {
      frozen = undefined;
    },
  };
}

export interface HarnessOptions {
  /** Admin token of the server; `null` starts it without one (the admin surface does not exist). */
  adminToken?: string | null;
  /** Clock for HMAC skew; default a controllable clock at real time (see `harness.clock`). */
  now?: () => number;
  /** More environment for loadConfig (SCRIBE_* settings). */
  env?: Record<string, string>;
}

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- assertions read arbitrary response fields
  body: any;
}

export interface RequestOptions {
  headers?: Record<string, string>;
  /** Sent as application/json. */
  json?: unknown;
  /** Sent as is (with `headers` deciding the Content-Type). */
  body?: string;
  /** Sent as multipart/form-data (fetch writes the boundary). */
  form?: FormData;
}

export interface Signer {
  publicKey: string;
  secret: string;
}

export interface SignOptions {
  /** Unix seconds to put in X-Timestamp; default the current time. */
  timestamp?: number;
  version?: 1 | 2;
  /** Replaces the computed signature (tampering). */
  signature?: string;
}

export interface Provisioned {
  id: string;
  apiKey: string;
  signer: Signer;
  created: AccountCreated;
}

export interface Harness {
  kind: DatabaseKind;
  baseUrl: string;
  app: App;
  db: Database;
  adminToken: string | undefined;
  clock: Clock;
  /** A request to the server; the response is checked against the contract before it is returned. */
  request(method: string, path: string, options?: RequestOptions): Promise<Reply>;
  /** A v3 request with a Bearer key. */
  v3(apiKey: string, method: string, path: string, options?: RequestOptions): Promise<Reply>;
  /** A signed v2/v1 request. */
  signed(signer: Signer, method: string, path: string, options?: RequestOptions & SignOptions): Promise<Reply>;
  /** The three (or four) signature headers of a request. */
  signatureHeaders(
    signer: Signer,
    method: string,
    path: string,
    body: string | undefined,
    options?: SignOptions,
  ): Promise<Record<string, string>>;
  /** An admin request with the server's admin token (or `token`). */
  admin(method: string, path: string, options?: RequestOptions & { token?: string }): Promise<Reply>;
  /** A new account with a v3 key and a v2 key pair, through the account service. */
  provision(request?: AccountCreateRequest): Promise<Provisioned>;
  /** A new account with a v3 key and a v2 key pair, through POST /admin/accounts. */
  provisionViaAdmin(request?: AccountCreateRequest): Promise<Provisioned>;
  close(): Promise<void>;
}

async function readReply(response: Response): Promise<Reply> {
  const text = await response.text();
  let body: unknown;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: response.status, headers: response.headers, text, body };
}

export async function startHarness(kind: DatabaseKind, options: HarnessOptions = {}): Promise<Harness> {
  const database = await freshDatabase(kind, { migrated: true });
  const adminToken = options.adminToken === null ? undefined : (options.adminToken ?? ADMIN_TOKEN);
  const clock = createClock();
  let app: App;
  try {
    const config = loadConfig({
      NODE_ENV: 'test',
      SCRIBE_SECRET_KEY: randomBytes(32).toString('hex'),
      ...(adminToken ? { SCRIBE_ADMIN_TOKEN: adminToken } : {}),
      ...database.env,
      ...options.env,
    });
    app = await createApp(config, { now: options.now ?? clock.now });
    await new Promise<void>((resolve, reject) => {
      app.server.once('error', reject);
      app.server.listen(0, '127.0.0.1', resolve);
    });
  } catch (error) {
    await database.drop().catch(() => undefined);
    throw error;
  }
  const baseUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;

  /** The request as it goes on the wire: JSON encoded, a form left for fetch to encode (with its boundary). */
  function wireRequest(method: string, path: string, requestOptions: RequestOptions): Request {
    const headers: Record<string, string> = { ...requestOptions.headers };
    let body: string | FormData | undefined = requestOptions.form ?? requestOptions.body;
    if (requestOptions.json !== undefined) {
      body = JSON.stringify(requestOptions.json);
      headers['Content-Type'] ??= 'application/json';
    }
    return new Request(`${baseUrl}${path}`, { method, headers, body });
  }

  async function send(request: Request, method: string, path: string): Promise<Reply> {
    const reply = await readReply(await fetch(request));
    checkResponse({ method, path: new URL(path, baseUrl).pathname }, reply);
    return reply;
  }

  const request = (method: string, path: string, requestOptions: RequestOptions = {}) =>
    send(wireRequest(method, path, requestOptions), method, path);

  /**
   * Signs `request` with scribe-client's signV2Request (version 2 over the very bytes it will send, a multipart body
   * with its boundary included), at `timestamp` and without a nonce unless the test sets its own header; a
   * `signature` replaces the computed one (tampering).
   */
  async function sign(request: Request, signer: Signer, signOptions: SignOptions): Promise<Request> {
    const timestamp = signOptions.timestamp;
    await signV2Request(request, {
      ...signer,
      version: signOptions.version ?? 1,
      nonce: false,
      ...(timestamp === undefined ? {} : { now: () => timestamp * 1000 }),
    });
    if (signOptions.signature !== undefined) request.headers.set('X-Signature', signOptions.signature);
    return request;
  }

  async function signatureHeaders(
    signer: Signer,
    method: string,
    path: string,
    body: string | undefined,
    signOptions: SignOptions = {},
  ): Promise<Record<string, string>> {
    const signed = await sign(new Request(`${baseUrl}${path}`, { method, body }), signer, signOptions);
    const names = ['X-Public-Key', 'X-Timestamp', 'X-Signature', 'X-Signature-Version'];
    return Object.fromEntries(
      names.flatMap((name) => (signed.headers.has(name) ? [[name, signed.headers.get(name)!]] : [])),
    );
  }

  const provisioned = (created: AccountCreated): Provisioned => ({
    id: created.account.id,
    apiKey: created.api_key!,
    signer: { publicKey: created.public_key!, secret: created.secret! },
    created,
  });

  const harness: Harness = {
    kind,
    baseUrl,
    app,
    db: app.db,
    adminToken,
    clock,
    request,
    v3: (apiKey, method, path, requestOptions = {}) =>
      request(method, path, {
        ...requestOptions,
        headers: { Authorization: `Bearer ${apiKey}`, ...requestOptions.headers },
      }),
    signatureHeaders,
    async signed(signer, method, path, requestOptions = {}) {
      // Signed as sent: the headers a test passes are applied after the signature, so they can tamper with it.
      const { headers: overrides, ...rest } = requestOptions;
      const signed = await sign(wireRequest(method, path, rest), signer, requestOptions);
      for (const [name, value] of Object.entries(overrides ?? {})) signed.headers.set(name, value);
      return send(signed, method, path);
    },
    admin: (method, path, requestOptions = {}) =>
      request(method, path, {
        ...requestOptions,
        headers: { 'X-Admin-Token': requestOptions.token ?? adminToken ?? '', ...requestOptions.headers },
      }),
    provision: async (accountRequest = {}) => provisioned(await app.services.accounts.create(accountRequest)),
    async provisionViaAdmin(accountRequest = {}) {
      const reply = await harness.admin('POST', '/admin/accounts', { json: accountRequest });
      if (reply.status !== 201) throw new Error(`POST /admin/accounts answered ${reply.status}: ${reply.text}`);
      return provisioned(reply.body as AccountCreated);
    },
    async close() {
      try {
        await app.close();
      } finally {
        await database.drop();
      }
    },
  };
  return harness;
}

/**
 * Starts a harness before the suite's tests and closes it after them. uvu swallows errors thrown by `before` hooks,
 * so a failed start (PostgreSQL unreachable, a migration error) is kept and rethrown by every test: the suite fails
 * with that message instead of passing or being skipped.
 */
export function useHarness<T>(test: Test<T>, kind: DatabaseKind, options: HarnessOptions = {}): () => Harness {
  let harness: Harness | undefined;
  let startError: Error | undefined;
  test.before(async () => {
    try {
      harness = await startHarness(kind, options);
    } catch (error) {
      startError = error as Error;
      console.error(`\n[${kind}] the test server did not start: ${startError.message}`);
    }
  });
  test.after(async () => {
    await harness?.close();
    harness = undefined;
  });
  return () => {
    if (harness) return harness;
    throw new Error(`[${kind}] no test server: ${startError?.message ?? 'it did not start'}`);
  };
}

/** Newest first by (created_at, id), the order of every list (plain code-unit comparison, as the databases do). */
export function byNewest(a: { created_at: string; id: string }, b: { created_at: string; id: string }): number {
  if (a.created_at !== b.created_at) return a.created_at < b.created_at ? 1 : -1;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}
