// The composition root: builds each part of a node from config (one builder per feature, each given what it needs)
// and wires them. The server refuses to start when an operation of the contract has no handler or a handler names no
// operation. The role (SCRIBE_ROLE) decides what runs: `all` everything; `api` the contract's routes and streams,
// announcing queued tasks to the workers; `worker` the background work (jobs, webhook deliveries, sweeps) behind
// GET /health.
//
// Start order: the chat models are loaded first (a file that does not load stops the start before anything is
// opened), then the database is migrated and the server key resolved, then the parts are built (nothing runs yet),
// then the HTTP server is made, and last the background work starts (jobs, deliveries, sweeps): a node takes work
// only once it can answer for it. Stop order: roles/shutdown.ts.
import { mkdir } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { pino, type Logger } from 'pino';
import type { OpenAPIBackend } from 'openapi-backend';
import { buildAccounts } from './accounts/build-accounts.ts';
import type { AccountService } from './accounts/service.ts';
import type { Ledger } from './billing/ledger.ts';
import { billingHandlers } from './billing/handlers.ts';
import { buildChat } from './chat/build-chat.ts';
import { createChatEngines } from './chat/engines.ts';
import type { Config } from './config.ts';
import { migrateToLatest, openDatabase, type Database } from './db/database.ts';
import { buildEmbeddings } from './embeddings/build-embeddings.ts';
import { healthHandlers } from './health/handlers.ts';
import { sharedContract } from './http/contract.ts';
import type { HandlerGroup, Handlers } from './http/operation.ts';
import { createRateLimit } from './http/rate-limit.ts';
import type { KeyService } from './keys/service.ts';
import { createAddressGuard } from './media/address-guard.ts';
import { createSpaceCheck } from './media/free-space.ts';
import { startMediaSweeper } from './media/media-sweeper.ts';
import { modelHandlers } from './models/handlers.ts';
import { createModelRegistry } from './models/registry.ts';
import { createApiApp } from './roles/api-app.ts';
import { startBackgroundWork, type BackgroundWork } from './roles/background-work.ts';
import { createHealthOnlyApp } from './roles/health-only-app.ts';
import { shutDownNode } from './roles/shutdown.ts';
import { resolveSecretKeys } from './secrets/secret-key.ts';
import { buildStreaming } from './streaming/build-streaming.ts';
import type { StreamEngine } from './streaming/stream-engine.ts';
import { buildTranscriptions } from './transcriptions/build-transcriptions.ts';
import type { TranscriptionEngine } from './transcriptions/engine/engine.ts';
import type { Runner } from './transcriptions/runner.ts';
import { usageHandlers } from './usage/handlers.ts';
import { webhookHandlers } from './webhooks/handlers.ts';
import { createWebhookDelivery } from './webhooks/service.ts';

export interface App {
  config: Config;
  db: Database;
  logger: Logger;
  server: Server;
  services: {
    accounts: AccountService;
    keys: KeyService;
    ledger: Ledger;
    /** Absent on an `api` process, which runs no job. */
    runner: Runner | undefined;
    /** The engine of batch transcription (tests reach its workers or model processes through it). */
    transcriptionEngine: TranscriptionEngine;
    streamEngine: StreamEngine;
  };
  /**
   * Shuts down gracefully: no new connections or claims, running jobs handed back, open streams closed (1011), then
   * everything released. Calling it again returns the same shutdown.
   */
  close(): Promise<void>;
}

/** Fails when the contract and the handler map disagree in either direction. */
export function checkHandlers(api: OpenAPIBackend, handlers: HandlerGroup): Handlers {
  const operationIds = api.getOperations().map((operation) => operation.operationId as string);
  const missing = operationIds.filter((id) => !(id in handlers));
  const unknown = Object.keys(handlers).filter((id) => !operationIds.includes(id));
  if (missing.length > 0 || unknown.length > 0) {
    throw new Error(
      `Handlers and contract disagree. Without a handler: ${missing.join(', ') || 'none'}. ` +
        `Naming no operation: ${unknown.join(', ') || 'none'}.`,
    );
  }
  return handlers as Handlers;
}

export async function createApp(config: Config, options: { logger?: Logger; now?: () => number } = {}): Promise<App> {
  const logger = options.logger ?? pino({ level: config.logLevel });
  const now = options.now ?? Date.now;
  const startedAt = Date.now();
  const chatEngines = await createChatEngines(config.chat);
  const db = openDatabase(config);
  await migrateToLatest(db);
  const secretKeys = await resolveSecretKeys(db, config); // PostgreSQL: shared by every node on the database
  const api = await sharedContract();

  const space = createSpaceCheck(config.dataDir, config.minFreeDiskBytes);
  const accountParts = buildAccounts(db, api, config, secretKeys);
  const { accountStore, keys, ledger, accounts } = accountParts;
  const chat = buildChat({ config, engines: chatEngines, db, ledger, api, logger });
  const guard = createAddressGuard(config.transcription.urlAllowHosts);
  const webhooks = createWebhookDelivery({ db, config: config.webhooks, guard, logger, secretKeys });
  // Endpoints registered before signing secrets were sealed get sealed now, with the key just resolved.
  await webhooks.store.sealPlaintextSecrets();
  const transcriptions = buildTranscriptions({
    config,
    db,
    ledger,
    api,
    secretKeys,
    // A task's final state: its webhook events, and the AI analysis of a v2 transcription created with `prompt`.
    onFinal: async (task) => {
      chat.transcriptChat.onFinal(task);
      await webhooks.onFinal(task);
    },
    logger,
    diskLow: async () => !(await space.healthy()),
  });
  const embeddings = buildEmbeddings(config, ledger, logger);
  const transcriptionEngine = transcriptions.engine;
  const streaming = buildStreaming({ config, db, ledger, api, now, logger, transcriptionEngine });
  const registry = createModelRegistry(transcriptions.engine, embeddings.engine, chatEngines);
  const { runner } = transcriptions;

  let background: BackgroundWork | undefined;
  let draining = false;
  const health = healthHandlers({
    db,
    registry,
    version: config.version,
    startedAt,
    role: config.role,
    runningJobs: () => runner?.running() ?? 0,
    runnerActive: () => background?.active() ?? true,
    space,
    // Deliveries are sent where the background work runs; an `api` process has no backlog of its own to report.
    webhooksLate: () => (runner ? webhooks.backlogLate() : Promise.resolve(false)),
    draining: () => draining,
  });
  const startBackground = () =>
    startBackgroundWork({
      runner: runner!,
      webhooks,
      streams: streaming.service,
      sweeps: () => [startMediaSweeper(transcriptions.files.media, logger)],
      databaseUrl: config.databaseUrl,
      nodeId: transcriptions.nodeId,
      logger,
    });

  let server: Server;
  let streamServer: ReturnType<typeof streaming.attach> | undefined;
  if (config.role === 'worker') {
    const healthApp = createHealthOnlyApp({
      api,
      getHealth: health.getHealth!,
      validateResponses: config.validateResponses,
      logger,
    });
    server = createServer(healthApp.callback());
  } else {
    const handlers = checkHandlers(api, {
      ...health,
      ...modelHandlers(registry),
      ...accountParts.handlers,
      ...billingHandlers(db, config.prices),
      ...usageHandlers(db),
      ...transcriptions.handlers(),
      ...webhookHandlers(webhooks),
      ...streaming.handlers,
      ...embeddings.handlers(),
      ...chat.handlers,
    });
    const parts = { api, db, handlers, accounts: accountStore, keys, now, logger, space, secretKeys };
    server = await createApiServer(config, parts);
    streamServer = streaming.attach(server);
    await mkdir(join(config.dataDir, 'uploads'), { recursive: true });
  }
  if (runner) background = await startBackground();

  let closed: Promise<void> | undefined;
  const engines = [transcriptions.engine, embeddings.engine, chatEngines, ...(streamServer ? [] : [streaming.engine])];
  return {
    config,
    db,
    logger,
    server,
    services: {
      accounts,
      keys,
      ledger,
      runner,
      transcriptionEngine: transcriptions.engine,
      streamEngine: streaming.engine,
    },
    close() {
      draining = true;
      closed ??= shutDownNode({
        server,
        background,
        streamServer,
        engines,
        db,
        drainMs: config.server.drainMs,
        logger,
      });
      return closed;
    },
  };
}

/** The API role's HTTP server: the handlers behind the contract's router and the account's limits, with its timeouts. */
async function createApiServer(
  config: Config,
  parts: Omit<Parameters<typeof createApiApp>[0], 'config' | 'rateLimit'>,
): Promise<Server> {
  const rateLimit = await createRateLimit(parts.db, config.requestsPerSecond);
  const server = createServer(createApiApp({ ...parts, config, rateLimit }).callback());
  server.headersTimeout = config.server.headersTimeoutMs;
  server.requestTimeout = config.server.requestTimeoutMs;
  server.keepAliveTimeout = config.server.keepAliveTimeoutMs;
  return server;
}
