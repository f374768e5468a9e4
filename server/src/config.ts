// One typed configuration for the whole server, read from the environment (and an optional JSON file named by
// SCRIBE_CONFIG). Every setting has a default that lets `npm start` run on a fresh clone with no other setup (without
// the speech engine's Debian packages it still starts, with transcription unavailable). A setting that cannot be used
// is a ConfigError naming it.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { availableParallelism } from 'node:os';
import ipaddr from 'ipaddr.js';
import { join, resolve } from 'node:path';
import { loadChatConfig, type ChatConfig } from './chat/config.ts';
import { MAX_NICE } from './workers/thread-priority.ts';
import { weakAdminTokenReason, weakSecretKeyReason } from './secrets/weak-secrets.ts';

export type Environment = 'production' | 'development' | 'test';

/**
 * Where Debian's pocketsphinx-en-us installs the US English model: the default of SCRIBE_POCKETSPHINX_MODEL_DIR, kept
 * here with the other defaults so that reading the settings does not load the engine (and its FFI binding).
 */
export const DEFAULT_MODEL_DIR = '/usr/share/pocketsphinx/model/en-us';

/**
 * What a process does (SCRIBE_ROLE): `all` everything (one node); `api` the contract's routes and streams, queueing
 * transcription work for workers; `worker` the batch jobs, webhook deliveries and sweeps, with only GET /health.
 */
export const ROLES = ['all', 'api', 'worker'] as const;
export type Role = (typeof ROLES)[number];

/** A setting the user can fix: `scribe: <setting> <problem>` is all that is printed, with exit code 1. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(
    readonly setting: string,
    problem: string,
  ) {
    super(`${setting} ${problem}`);
  }
}

/** Prices in minor units of the account currency (kopecks for RUB): per minute, or per 1,000 tokens. */
export interface PriceTable {
  transcribe_queue: number;
  transcribe_lightning: number;
  'service-mini_prompt_tokens': number;
  'service-mini_completion_tokens': number;
  'service-pro_prompt_tokens': number;
  'service-pro_completion_tokens': number;
  'service-embedding_tokens': number;
}

export interface Config {
  environment: Environment;
  role: Role;
  port: number;
  host: string;
  databaseUrl: string | undefined;
  dataDir: string;
  adminToken: string | undefined;
  publicUrl: string | undefined;
  logLevel: string;
  /** Validate every response against the contract (on in test and development, off in production). */
  validateResponses: boolean;
  currency: string;
  prices: PriceTable;
  maxConcurrentJobs: number;
  /** Per-account request rate limit; `0` disables it (benchmarks). */
  requestsPerSecond: number;
  /** How long an authenticated Bearer key is remembered in-process (ms; 0 = read the database on every request). */
  authCacheMs: number;
  /**
   * Refused Bearer keys and signatures allowed per client address (`perAddress`) and per client address and presented
   * credential (`perCredential`) within `windowSeconds` before that address gets 429; 0 turns a limit off. Off by
   * default under NODE_ENV=test, where suites send hundreds of deliberately refused credentials from 127.0.0.1.
   */
  failedAuth: { perAddress: number; perCredential: number; windowSeconds: number };
  /** SCRIBE_TRUSTED_PROXIES: the peers (addresses, CIDR ranges) whose X-Forwarded-For names the client. */
  trustedProxies: string[];
  /** The transcription pipeline (issue 4): engine, workers, job leases, async limits, media URL guard. */
  transcription: TranscriptionConfig;
  /** Text generation (issue 6): engines of `service-mini` / `service-pro`, their threads, queue and reservation cap. */
  chat: ChatConfig;
  /** Embeddings (issue 6): engine of `service-embedding`, its workers and the batch limit. */
  embedding: EmbeddingConfig;
  /** v2 result links (`results.text|json|pdf`): how long a link issued by a read stays valid, in seconds. */
  resultLinkTtlSeconds: number;
  /** Webhook delivery (issue 5): retry schedule, request time limit, dispatcher polling and parallel sends. */
  webhooks: WebhookConfig;
  /** Real-time stream sessions over WebSocket: limits, reservation size, timeouts, worker threads. */
  streaming: StreamingConfig;
  /**
   * AES-256-GCM key that encrypts v2 secrets at rest (hex, 32 bytes): SCRIBE_SECRET_KEY, or on SQLite the data dir's
   * secret.key. Undefined on PostgreSQL without SCRIBE_SECRET_KEY: every node then uses the key kept in the database,
   * which createApp resolves (secrets/secret-key.ts) — never a key generated per node.
   */
  secretKey: Buffer | undefined;
  /**
   * Keys the server key replaced (SCRIBE_SECRET_KEY_PREVIOUS, hex, comma-separated): values sealed and links signed
   * with them still open and verify, nothing new is sealed with them; `scribe secrets reseal` re-seals what they hold.
   */
  previousSecretKeys: Buffer[];
  /** How long anything waits for the database before the request is answered 503 `database_unavailable`. */
  database: DatabaseTimeouts;
  /** Free space the data dir keeps: below it uploads are refused (503 `insufficient_storage`) and /health degrades. */
  minFreeDiskBytes: number;
  /** The HTTP server's own bounds: slow clients and the graceful stop. */
  server: ServerTimeouts;
  version: string;
}

export interface DatabaseTimeouts {
  /** A new PostgreSQL connection (TCP, TLS, authentication) must be made within this. */
  connectTimeoutMs: number;
  /** Waiting for a free connection of the pool (all busy, or none can be made) ends after this. */
  acquireTimeoutMs: number;
  /**
   * One statement may run this long: PostgreSQL cancels it (`statement_timeout`), and the client gives up on a server
   * that does not answer at all (a frozen host) a second later, dropping that connection.
   */
  statementTimeoutMs: number;
  /** SQLite: how long a write waits for another writer's lock (`busy_timeout`). */
  sqliteBusyTimeoutMs: number;
}

export interface ServerTimeouts {
  /** A client must have sent the request's headers within this (Node's `headersTimeout`). */
  headersTimeoutMs: number;
  /** The whole request, body included, must have arrived within this (Node's `requestTimeout`; 0 = no limit). */
  requestTimeoutMs: number;
  /** A request body that sends nothing for this long is abandoned (a client that stalls mid-upload). */
  idleBodyTimeoutMs: number;
  /**
   * An idle kept-alive connection is closed after this (Node's `keepAliveTimeout`, announced in `Keep-Alive`). Above
   * a load balancer's idle timeout (60 s is common), so the balancer, not the server, closes an idle connection: a
   * server that closes first races the balancer's next request on it, which fails (a 502 at the balancer).
   */
  keepAliveTimeoutMs: number;
  /** After SIGTERM, how long requests in flight (uploads included) may run on before their connections are cut. */
  drainMs: number;
}

export interface TranscriptionConfig {
  /** `pocketsphinx` (embedded) or `openai:<base-url>#<model>` (an OpenAI-compatible upstream). */
  model: string;
  /** Bearer key for an upstream transcription engine. */
  upstreamApiKey: string | undefined;
  /** Speech-engine worker threads. */
  workers: number;
  /**
   * Nice value (0–19) of those threads: batch recognition yields the cores to the server's thread, live streams and
   * chat. 19 by default, 0 (no change) under NODE_ENV=test, where many suites share the cores and a lowered decoder
   * would wait on all of them.
   */
  workerNice: number;
  /**
   * Jobs this process runs at once: more than the workers, so the next job is downloaded and decoded while the
   * engine is busy and no worker waits for ffmpeg or the database between jobs.
   */
  slots: number;
  /** How long a worker's hold on a job lasts without a heartbeat; a dead worker's job is taken over after it. */
  leaseMs: number;
  /** How often an idle worker looks for jobs created by other processes or left by dead workers. */
  pollMs: number;
  /** Async limits (the seed leaves them open; contract.md: 500 MB, 4 hours). */
  asyncMaxBytes: number;
  asyncMaxSeconds: number;
  downloadTimeoutMs: number;
  /** Hosts or CIDRs that media and webhook URLs may reach although they are private (tests: 127.0.0.1). */
  urlAllowHosts: string[];
  /** Where the embedded engine's files are (the stream decoder uses the same). */
  pocketsphinx: PocketSphinxFiles;
  /** The whisper engine, used when `modelPath` is set (SCRIBE_WHISPER_MODEL). */
  whisper: WhisperSettings;
}

export interface WhisperSettings {
  /** A whisper.cpp ggml model file (f16 or f32); undefined = the whisper engine is not used. */
  modelPath: string | undefined;
  /** Model processes, i.e. files decoded at once; each holds the model in memory. */
  processes: number;
  /** Of those, how many only decode live streams' windows (a file never takes them); less than `processes`. */
  streamProcesses: number;
  /** Compute threads per decode; undefined = the cores divided among the processes. */
  threads: number | undefined;
  /**
   * Step by which the decoder raises its temperature to retry a window that fails its quality checks (whisper.cpp's
   * temperature_inc, 0.2 by default); 0 turns the retries off (faster, a little less robust on hard audio).
   */
  temperatureInc: number | undefined;
  /** A model process resident above this many MB while it decodes is killed and replaced (undefined: no cap). */
  maxRssMb: number | undefined;
}

export interface PocketSphinxFiles {
  /** Directory with `en-us/`, `en-us.lm.bin` and `cmudict-en-us.dict` (Debian's pocketsphinx-en-us by default). */
  modelDir: string;
  /** The libpocketsphinx.so.3 file (its libsphinxbase.so.3 beside it); undefined = the system's. */
  library: string | undefined;
}

export interface StreamingConfig {
  /** Open sessions per account (created with a live ticket, or connected); one more is 429 too_many_concurrent_jobs. */
  maxSessions: number;
  /** Minutes of audio the reservation made at create covers (capped by the funds available); grown a minute at a time. */
  reserveMinutes: number;
  /** A connection without any data frame for this long is closed with 4408. */
  idleTimeoutMs: number;
  /** Audio may run this far ahead of real time (since session.started); beyond it the connection is closed with 4429. */
  maxAheadSeconds: number;
  /** Stream decoder threads (each hosts many sessions). */
  workers: number;
  /** How often expired tickets and sessions of dead processes are swept (their reservations released). */
  sweepMs: number;
  /** How long a connected session's hold lasts without renewal (a dead process's sessions are swept after it). */
  leaseMs: number;
}

export interface EmbeddingConfig {
  /** `use-lite` (embedded Universal Sentence Encoder lite, the default) or `openai:<base-url>#<model>` (an upstream). */
  model: string;
  /** Bearer key for an upstream embedding engine. */
  upstreamApiKey: string | undefined;
  /** Worker threads of the embedded engine (each holds the model). */
  workers: number;
  /** Most texts in one request; the contract allows at most 2048. */
  maxInputs: number;
  /** Most tokens of all texts of one request (the contract's 300,000 at most). */
  maxRequestTokens: number;
  /** Embedding requests one account may have in this process at once; one more is 429 `too_many_concurrent_jobs`. */
  maxAccountRequests: number;
}

export interface WebhookConfig {
  /** Seconds from one attempt to the next (fractions allowed); one retry per entry after the first attempt. */
  schedule: number[];
  /** Time limit of one attempt (address check, connection, answer). */
  timeoutMs: number;
  /** How often an idle dispatcher looks for deliveries enqueued by other processes. */
  pollMs: number;
  /** Deliveries this process sends at once. */
  concurrency: number;
  /** Attempts in flight to one endpoint at once (all processes): a receiver that hangs holds no more slots. */
  perEndpoint: number;
  /** After an attempt timed out, the endpoint's other due deliveries wait this long (ms). */
  timeoutBackoffMs: number;
}

/** The contract's default: retries 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h and 24 h apart (≈ 3 days). */
export const defaultWebhookSchedule = [5, 300, 1800, 7200, 18_000, 36_000, 50_400, 72_000, 86_400];

export const defaultPrices: PriceTable = {
  transcribe_queue: 100,
  transcribe_lightning: 200,
  'service-mini_prompt_tokens': 10,
  'service-mini_completion_tokens': 30,
  'service-pro_prompt_tokens': 50,
  'service-pro_completion_tokens': 150,
  'service-embedding_tokens': 2,
};

type Env = Record<string, string | undefined>;

/** A non-negative decimal number, or undefined when unset. */
function decimal(env: Env, name: string): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0) throw new ConfigError(name, `must be a non-negative number, got "${raw}"`);
  return value;
}

function integer(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0)
    throw new ConfigError(name, `must be a non-negative integer, got "${raw}"`);
  return value;
}

function niceValue(env: Env, name: string, fallback: number): number {
  const value = integer(env, name, fallback);
  if (value > MAX_NICE) throw new ConfigError(name, `must be a nice value from 0 to ${MAX_NICE}, got "${env[name]}"`);
  return value;
}

function secondsList(env: Env, name: string, fallback: number[]): number[] {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  return raw.split(',').map((part) => {
    const value = Number(part.trim());
    if (part.trim() === '' || !Number.isFinite(value) || value < 0)
      throw new ConfigError(name, `must be comma-separated non-negative seconds, got "${raw}"`);
    return value;
  });
}

const SECRET_KEY_HEX = /^[0-9a-f]{64}$/i;

/**
 * The data dir's secret.key, or undefined when this node has none. A file that is there but cannot be read or holds
 * no key is a ConfigError: silently replacing it would lose every secret sealed with it.
 */
export function readSecretKeyFile(dataDir: string): Buffer | undefined {
  const file = join(dataDir, 'secret.key');
  let stored: string;
  try {
    if (!existsSync(file)) return undefined;
    stored = readFileSync(file, 'utf8').trim();
  } catch (error) {
    throw new ConfigError('SCRIBE_DATA_DIR', `is not usable: ${(error as Error).message}`);
  }
  if (!SECRET_KEY_HEX.test(stored)) {
    throw new ConfigError('SCRIBE_SECRET_KEY', `is not set and ${file} does not hold 64 hex characters`);
  }
  return Buffer.from(stored, 'hex');
}

/** SQLite without SCRIBE_SECRET_KEY: the key is generated once into the data dir, so restarts keep it. */
function dataDirSecretKey(dataDir: string): Buffer {
  try {
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(join(dataDir, 'secret.key'), randomBytes(32).toString('hex'), { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
      throw new ConfigError('SCRIBE_DATA_DIR', `is not usable: ${(error as Error).message}`);
    }
  }
  return readSecretKeyFile(dataDir)!;
}

/**
 * SCRIBE_SECRET_KEY when set. Otherwise SQLite (one node) keeps its key in the data dir, and PostgreSQL leaves it
 * undefined: the nodes on one database share the key kept there (secrets/secret-key.ts), since a file generated by
 * each node would open only the secrets that node sealed.
 */
function loadSecretKey(env: Env, dataDir: string, databaseUrl: string | undefined): Buffer | undefined {
  const fromEnv = env.SCRIBE_SECRET_KEY;
  if (fromEnv) {
    if (!SECRET_KEY_HEX.test(fromEnv)) {
      throw new ConfigError(
        'SCRIBE_SECRET_KEY',
        `must be 64 hex characters (32 bytes), got ${fromEnv.length} characters`,
      );
    }
    const weak = weakSecretKeyReason(fromEnv);
    if (weak) throw new ConfigError('SCRIBE_SECRET_KEY', weak);
    return Buffer.from(fromEnv, 'hex');
  }
  return databaseUrl ? undefined : dataDirSecretKey(dataDir);
}

/**
 * SCRIBE_SECRET_KEY_PREVIOUS: the keys a rotation replaced, accepted for opening and verifying only. A weak or
 * published key is accepted here (rotating away from it is the point); the current key must be set beside it.
 */
function loadPreviousSecretKeys(env: Env, current: Buffer | undefined): Buffer[] {
  const entries = (env.SCRIBE_SECRET_KEY_PREVIOUS ?? '').split(/[\s,]+/).filter(Boolean);
  if (entries.length === 0) return [];
  if (!env.SCRIBE_SECRET_KEY) {
    throw new ConfigError('SCRIBE_SECRET_KEY_PREVIOUS', 'is set without SCRIBE_SECRET_KEY: set the new key there');
  }
  return entries.map((entry) => {
    if (!SECRET_KEY_HEX.test(entry)) {
      throw new ConfigError('SCRIBE_SECRET_KEY_PREVIOUS', `must list keys of 64 hex characters, got ${entry.length}`);
    }
    const key = Buffer.from(entry, 'hex');
    if (current?.equals(key)) {
      throw new ConfigError('SCRIBE_SECRET_KEY_PREVIOUS', 'lists SCRIBE_SECRET_KEY itself: list the keys it replaced');
    }
    return key;
  });
}

/** SCRIBE_TRUSTED_PROXIES: addresses and CIDR ranges, separated by commas or spaces; a malformed one stops the start. */
function trustedProxies(raw: string | undefined): string[] {
  const entries = (raw ?? '').split(/[\s,]+/).filter(Boolean);
  for (const entry of entries) {
    const valid = entry.includes('/') ? ipaddr.isValidCIDR(entry) : ipaddr.isValid(entry);
    if (!valid) throw new ConfigError('SCRIBE_TRUSTED_PROXIES', `must list addresses or CIDR ranges, got "${entry}"`);
  }
  return entries;
}

/** SCRIBE_ADMIN_TOKEN: unset turns the admin surface off; a guessable one is refused rather than exposed. */
function adminToken(raw: string | undefined): string | undefined {
  if (!raw) return undefined;
  const weak = weakAdminTokenReason(raw);
  if (weak) throw new ConfigError('SCRIBE_ADMIN_TOKEN', weak);
  return raw;
}

/**
 * SCRIBE_ROLE. `api` and `worker` need PostgreSQL: they exist so that nodes on separate machines share one database,
 * and an SQLite file is one machine's (an `api` alone on it would queue work that nothing runs).
 */
function role(raw: string | undefined, databaseUrl: string | undefined): Role {
  if (raw === undefined || raw === '') return 'all';
  if (!(ROLES as readonly string[]).includes(raw)) {
    throw new ConfigError('SCRIBE_ROLE', `must be one of ${ROLES.join(', ')}, got "${raw}"`);
  }
  if (raw !== 'all' && !databaseUrl) {
    throw new ConfigError('SCRIBE_ROLE', `${raw} needs DATABASE_URL (PostgreSQL); on SQLite leave it unset (all)`);
  }
  return raw as Role;
}

/** A JSON setting, parsed; a syntax error names the setting instead of ending in a stack trace. */
function json(raw: string, setting: string): unknown {
  try {
    return JSON.parse(raw);
  } catch (error) {
    throw new ConfigError(setting, `is not valid JSON: ${(error as Error).message}`);
  }
}

function priceTable(raw: string | undefined): PriceTable {
  if (!raw) return defaultPrices;
  const parsed = json(raw, 'SCRIBE_PRICES');
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new ConfigError('SCRIBE_PRICES', 'must be a JSON object of prices, e.g. {"transcribe_queue": 100}');
  }
  for (const [name, value] of Object.entries(parsed)) {
    if (!(name in defaultPrices)) {
      throw new ConfigError(
        'SCRIBE_PRICES',
        `has an unknown price "${name}"; known: ${Object.keys(defaultPrices).join(', ')}`,
      );
    }
    if (!Number.isInteger(value) || (value as number) < 0) {
      throw new ConfigError(
        'SCRIBE_PRICES',
        `"${name}" must be a non-negative integer (minor units), got ${JSON.stringify(value)}`,
      );
    }
  }
  return { ...defaultPrices, ...(parsed as Partial<PriceTable>) };
}

function configFile(path: string | undefined): Env {
  if (!path) return {};
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError('SCRIBE_CONFIG', `cannot be read: ${(error as Error).message}`);
  }
  const parsed = json(text, 'SCRIBE_CONFIG');
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new ConfigError('SCRIBE_CONFIG', 'must name a JSON object of settings');
  }
  return parsed as Env;
}

export function loadConfig(env: Env = process.env): Config {
  const merged: Env = { ...configFile(env.SCRIBE_CONFIG), ...env };
  const environment = (
    merged.NODE_ENV === 'production' || merged.NODE_ENV === 'test' ? merged.NODE_ENV : 'development'
  ) as Environment;
  const dataDir = resolve(merged.SCRIBE_DATA_DIR ?? './data');
  const prices = priceTable(merged.SCRIBE_PRICES);
  const workers = integer(merged, 'SCRIBE_WORKERS', availableParallelism()) || availableParallelism();
  const secretKey = loadSecretKey(merged, dataDir, merged.DATABASE_URL || undefined);
  const whisperProcesses = integer(merged, 'SCRIBE_WHISPER_PROCESSES', 1) || 1;
  const whisperStreamProcesses = integer(merged, 'SCRIBE_WHISPER_STREAM_PROCESSES', 0);
  if (whisperStreamProcesses >= whisperProcesses) {
    throw new ConfigError(
      'SCRIBE_WHISPER_STREAM_PROCESSES',
      `must be less than SCRIBE_WHISPER_PROCESSES (${whisperProcesses}): files need a process of their own, got "${whisperStreamProcesses}"`,
    );
  }
  return {
    environment,
    role: role(merged.SCRIBE_ROLE, merged.DATABASE_URL || undefined),
    port: integer(merged, 'PORT', 8080),
    host: merged.HOST ?? '127.0.0.1',
    databaseUrl: merged.DATABASE_URL || undefined,
    dataDir,
    adminToken: adminToken(merged.SCRIBE_ADMIN_TOKEN),
    publicUrl: merged.SCRIBE_PUBLIC_URL || undefined,
    logLevel: merged.LOG_LEVEL ?? (environment === 'test' ? 'silent' : 'info'),
    validateResponses: merged.SCRIBE_VALIDATE_RESPONSES
      ? merged.SCRIBE_VALIDATE_RESPONSES === 'true'
      : environment !== 'production',
    currency: merged.SCRIBE_CURRENCY ?? 'RUB',
    prices,
    maxConcurrentJobs: integer(merged, 'SCRIBE_MAX_CONCURRENT_JOBS', 5),
    requestsPerSecond: integer(merged, 'SCRIBE_RATE_LIMIT_RPS', 10),
    authCacheMs: integer(merged, 'SCRIBE_AUTH_CACHE_MS', 2000),
    failedAuth: {
      perAddress: integer(merged, 'SCRIBE_AUTH_FAILURES_PER_ADDRESS', environment === 'test' ? 0 : 100),
      perCredential: integer(merged, 'SCRIBE_AUTH_FAILURES_PER_CREDENTIAL', environment === 'test' ? 0 : 10),
      windowSeconds: integer(merged, 'SCRIBE_AUTH_FAILURE_WINDOW_S', 60) || 60,
    },
    trustedProxies: trustedProxies(merged.SCRIBE_TRUSTED_PROXIES),
    transcription: {
      model: merged.SCRIBE_TRANSCRIBE_MODEL || 'pocketsphinx',
      upstreamApiKey: merged.SCRIBE_TRANSCRIBE_API_KEY || undefined,
      workers,
      workerNice: niceValue(merged, 'SCRIBE_WORKER_NICE', environment === 'test' ? 0 : MAX_NICE),
      slots: integer(merged, 'SCRIBE_JOB_SLOTS', 2 * workers) || 2 * workers,
      leaseMs: integer(merged, 'SCRIBE_JOB_LEASE_MS', 30_000),
      pollMs: integer(merged, 'SCRIBE_JOB_POLL_MS', 1000),
      asyncMaxBytes: integer(merged, 'SCRIBE_ASYNC_MAX_BYTES', 500 * 1024 * 1024),
      asyncMaxSeconds: integer(merged, 'SCRIBE_ASYNC_MAX_SECONDS', 4 * 3600),
      downloadTimeoutMs: integer(merged, 'SCRIBE_DOWNLOAD_TIMEOUT_MS', 120_000),
      urlAllowHosts: (merged.SCRIBE_URL_ALLOW_HOSTS ?? '')
        .split(',')
        .map((host) => host.trim())
        .filter(Boolean),
      pocketsphinx: {
        modelDir: resolve(merged.SCRIBE_POCKETSPHINX_MODEL_DIR || DEFAULT_MODEL_DIR),
        library: merged.SCRIBE_POCKETSPHINX_LIBRARY ? resolve(merged.SCRIBE_POCKETSPHINX_LIBRARY) : undefined,
      },
      whisper: {
        modelPath: merged.SCRIBE_WHISPER_MODEL ? resolve(merged.SCRIBE_WHISPER_MODEL) : undefined,
        processes: whisperProcesses,
        streamProcesses: whisperStreamProcesses,
        threads: integer(merged, 'SCRIBE_WHISPER_THREADS', 0) || undefined,
        temperatureInc: decimal(merged, 'SCRIBE_WHISPER_TEMPERATURE_INC'),
        maxRssMb: integer(merged, 'SCRIBE_WHISPER_MAX_RSS_MB', 0) || undefined,
      },
    },
    resultLinkTtlSeconds: integer(merged, 'SCRIBE_RESULT_LINK_TTL_S', 3600) || 3600,
    chat: loadChatConfig(merged),
    embedding: {
      model: merged.SCRIBE_EMBEDDING_MODEL || 'use-lite',
      upstreamApiKey: merged.SCRIBE_EMBEDDING_API_KEY || undefined,
      workers: integer(merged, 'SCRIBE_EMBEDDING_WORKERS', 1) || 1,
      maxInputs: Math.min(integer(merged, 'SCRIBE_EMBEDDING_MAX_INPUTS', 2048) || 2048, 2048),
      maxRequestTokens: Math.min(integer(merged, 'SCRIBE_EMBEDDING_MAX_TOKENS', 300_000) || 300_000, 300_000),
      maxAccountRequests: integer(merged, 'SCRIBE_EMBEDDING_ACCOUNT_REQUESTS', 8) || 8,
    },
    webhooks: {
      schedule: secondsList(merged, 'SCRIBE_WEBHOOK_SCHEDULE', defaultWebhookSchedule),
      timeoutMs: integer(merged, 'SCRIBE_WEBHOOK_TIMEOUT_MS', 15_000) || 15_000,
      pollMs: integer(merged, 'SCRIBE_WEBHOOK_POLL_MS', 1000) || 1000,
      concurrency: integer(merged, 'SCRIBE_WEBHOOK_CONCURRENCY', 4) || 1,
      perEndpoint: integer(merged, 'SCRIBE_WEBHOOK_PER_ENDPOINT', 2) || 1,
      timeoutBackoffMs: integer(merged, 'SCRIBE_WEBHOOK_TIMEOUT_BACKOFF_MS', 30_000),
    },
    streaming: {
      maxSessions: integer(merged, 'SCRIBE_STREAM_MAX_SESSIONS', 5),
      reserveMinutes: integer(merged, 'SCRIBE_STREAM_RESERVE_MINUTES', 10) || 1,
      idleTimeoutMs: integer(merged, 'SCRIBE_STREAM_IDLE_MS', 30_000) || 30_000,
      maxAheadSeconds: integer(merged, 'SCRIBE_STREAM_MAX_AHEAD_S', 30) || 30,
      workers: integer(merged, 'SCRIBE_STREAM_WORKERS', availableParallelism()) || availableParallelism(),
      sweepMs: integer(merged, 'SCRIBE_STREAM_SWEEP_MS', 10_000) || 10_000,
      leaseMs: integer(merged, 'SCRIBE_STREAM_LEASE_MS', 30_000) || 30_000,
    },
    secretKey,
    previousSecretKeys: loadPreviousSecretKeys(merged, secretKey),
    database: {
      connectTimeoutMs: integer(merged, 'SCRIBE_DB_CONNECT_TIMEOUT_MS', 3000) || 3000,
      acquireTimeoutMs: integer(merged, 'SCRIBE_DB_ACQUIRE_TIMEOUT_MS', 5000) || 5000,
      statementTimeoutMs: integer(merged, 'SCRIBE_DB_STATEMENT_TIMEOUT_MS', 15_000) || 15_000,
      sqliteBusyTimeoutMs: integer(merged, 'SCRIBE_SQLITE_BUSY_TIMEOUT_MS', 5000),
    },
    minFreeDiskBytes: integer(merged, 'SCRIBE_MIN_FREE_DISK_MB', 100) * 1024 * 1024,
    server: {
      headersTimeoutMs: integer(merged, 'SCRIBE_HEADERS_TIMEOUT_MS', 20_000) || 20_000,
      requestTimeoutMs: integer(merged, 'SCRIBE_REQUEST_TIMEOUT_MS', 0),
      idleBodyTimeoutMs: integer(merged, 'SCRIBE_IDLE_BODY_TIMEOUT_MS', 30_000) || 30_000,
      keepAliveTimeoutMs: integer(merged, 'SCRIBE_KEEP_ALIVE_TIMEOUT_MS', 65_000) || 65_000,
      drainMs: integer(merged, 'SCRIBE_DRAIN_MS', 30_000),
    },
    version: '0.1.0',
  };
}
