// The composition root: builds the database, services and handlers from config and wires the Koa app. The server
// refuses to start when an operation of the contract has no handler or a handler names no operation.
// The role (SCRIBE_ROLE) decides what runs: `all` everything; `api` the contract's routes and streams, announcing
// queued tasks to the workers; `worker` the background work (jobs, webhook deliveries, sweeps) behind GET /health.
import { randomUUID } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import Koa from 'koa';
import { pino, type Logger } from 'pino';
import type { OpenAPIBackend } from 'openapi-backend';
import { adminHandlers } from './accounts/admin-handlers.ts';
import { createAccountService, type AccountService } from './accounts/service.ts';
import { createAccountStore } from './accounts/store.ts';
import { billingHandlers } from './billing/handlers.ts';
import { createLedger, type Ledger } from './billing/ledger.ts';
import { createChatService } from './chat/chat-service.ts';
import { createChatEngines } from './chat/engines.ts';
import { chatHandlers } from './chat/handlers.ts';
import { createTranscriptChat } from './chat/v2/transcript-chat.ts';
import { createTranscriptChatStore } from './chat/v2/transcript-chat-store.ts';
import { v2ChatHandlers } from './chat/v2/v2-handlers.ts';
import type { Config } from './config.ts';
import { migrateToLatest, openDatabase, type Database } from './db/database.ts';
import { serveDocs } from './docs/serve-docs.ts';
import { createEmbeddingEngine } from './embeddings/engines.ts';
import { embeddingHandlers } from './embeddings/handlers.ts';
import { createEmbeddingService } from './embeddings/service.ts';
import { healthHandlers } from './health/handlers.ts';
import { accessLog } from './http/access-log.ts';
import { createRequestValidator } from './http/request-validation.ts';
import { createRouter, sharedContract, warmRequestValidators, type ContractOperation } from './http/contract.ts';
import { dispatch } from './http/dispatch.ts';
import { errorHandler } from './http/error-handler.ts';
import type { HandlerGroup, Handlers } from './http/operation.ts';
import { createIdempotencyStore } from './http/idempotency.ts';
import { createFailedAuthLimit, createRateLimit } from './http/rate-limit.ts';
import { createSignatureNonces } from './http/signature-nonces.ts';
import { requestId } from './http/request-id.ts';
import { keyHandlers } from './keys/handlers.ts';
import { createCredentialCache } from './keys/credential-cache.ts';
import { createKeyService, type KeyService } from './keys/service.ts';
import { createKeyStore } from './keys/store.ts';
import { modelHandlers } from './models/handlers.ts';
import { createModelRegistry } from './models/registry.ts';
import { resolveSecretKey } from './secrets/secret-key.ts';
import { createAddressGuard } from './media/address-guard.ts';
import { createMediaStore } from './media/media-store.ts';
import { startMediaSweeper } from './media/media-sweeper.ts';
import { startBackgroundWork, type BackgroundWork } from './roles/background-work.ts';
import { createHealthOnlyApp } from './roles/health-only-app.ts';
import { createJobAnnouncer } from './roles/job-wakeup.ts';
import { streamHandlers } from './streaming/handlers.ts';
import { createStreamService } from './streaming/session-service.ts';
import { createStreamEngine, type StreamEngine } from './streaming/stream-engine.ts';
import { attachStreamServer } from './streaming/stream-server.ts';
import { createTranscriptionEngine } from './transcriptions/engines.ts';
import { threadPrioritySupported } from './workers/thread-priority.ts';
import { transcriptionReadHandlers } from './transcriptions/handlers.ts';
import { createIntake } from './transcriptions/intake.ts';
import { createJobQueue, UNFINISHED } from './transcriptions/jobs.ts';
import { openAiTranscriptionHandlers } from './transcriptions/openai-transcription-handlers.ts';
import { createPipeline } from './transcriptions/pipeline.ts';
import { createRunner, type Runner } from './transcriptions/runner.ts';
import { createTranscriptionStore } from './transcriptions/store.ts';
import { createTaskFiles } from './transcriptions/task-files.ts';
import { transcriptionTaskHandlers } from './transcriptions/task-handlers.ts';
import { createResultLinks } from './transcriptions/v2/result-links.ts';
import { v2TranscriptionHandlers } from './transcriptions/v2/v2-handlers.ts';
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
    streamEngine: StreamEngine;
  };
  /**
   * Shuts down gracefully: no new connections or claims, running jobs handed back, open streams closed (1011), then
   * everything released. Calling it again returns the same shutdown.
   */
  close(): Promise<void>;
}

/** How long in-flight HTTP requests may run on after a shutdown began before their connections are cut. */
const DRAIN_MS = 10_000;

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

function limitOf(api: OpenAPIBackend, operationId: string, name: string): number {
  const value = (api.getOperation(operationId) as ContractOperation | undefined)?.['x-limits']?.[name];
  if (typeof value !== 'number') throw new Error(`the contract has no x-limits.${name} on ${operationId}`);
  return value;
}

export async function createApp(config: Config, options: { logger?: Logger; now?: () => number } = {}): Promise<App> {
  const logger = options.logger ?? pino({ level: config.logLevel });
  const startedAt = Date.now();
  // Chat: each configured GGUF is loaded first (a file that does not load stops the start with its reason, before
  // anything else is opened).
  const chatEngines = await createChatEngines(config.chat);
  const db = openDatabase(config);
  await migrateToLatest(db);
  const secretKey = await resolveSecretKey(db, config); // PostgreSQL: shared by every node on the database
  const api = await sharedContract();

  const accountStore = createAccountStore(db);
  const keyStore = createKeyStore(db);
  const keys = createKeyService(db, keyStore, {
    secretKey,
    maxLiveKeys: limitOf(api, 'createApiKey', 'max_live_keys_per_account'),
    credentials: createCredentialCache(config.authCacheMs),
  });
  const ledger = createLedger(db);
  const accounts = createAccountService(accountStore, ledger, keys, config.currency);
  const rateLimit = await createRateLimit(db, config.requestsPerSecond);

  // The transcription pipeline: intake in the request, the rest in jobs run from the durable queue.
  const stt = config.transcription;
  const engine = createTranscriptionEngine(stt);
  if (engine.unavailable) logger.warn(stt.pocketsphinx, `the speech engine is not available: ${engine.unavailable}`);
  if (stt.workerNice > 0 && !threadPrioritySupported()) {
    logger.warn("SCRIBE_WORKER_NICE is ignored: this platform cannot lower one thread's priority (Linux only)");
  }
  // Embeddings: the engine starts its workers with the first request (see embeddings/use-lite/engine.ts).
  const embeddingEngine = createEmbeddingEngine(config.embedding);
  const registry = createModelRegistry(engine, embeddingEngine, chatEngines);
  const chat = createChatService({
    engines: chatEngines,
    ledger,
    prices: config.prices,
    reserveCapTokens: config.chat.reserveCapTokens,
  });
  const jobs = createJobQueue(db, { leaseMs: stt.leaseMs });
  const files = createTaskFiles(config.dataDir, createMediaStore(db, UNFINISHED), { runsJobs: config.role !== 'api' });
  const transcriptionStore = createTranscriptionStore(db);
  const webhooks = createWebhookDelivery({
    db,
    config: config.webhooks,
    guard: createAddressGuard(stt.urlAllowHosts),
    logger,
  });
  const transcriptChat = createTranscriptChat({
    db,
    chat,
    store: createTranscriptChatStore(db),
    freeLimit: limitOf(api, 'createV2TranscriptChatCompletion', 'free_mini_requests_per_transcription'),
    logger,
  });
  // A task's final state: its webhook events, and the AI analysis of a v2 transcription created with `prompt`.
  const onFinal = async (task: Parameters<typeof webhooks.onFinal>[0]) => {
    transcriptChat.onFinal(task);
    await webhooks.onFinal(task);
  };
  const pipeline = createPipeline({
    jobs,
    ledger,
    engine,
    files,
    prices: config.prices,
    config: stt,
    guard: createAddressGuard(stt.urlAllowHosts),
    logger,
    onFinal,
  });
  const runner =
    config.role === 'api'
      ? undefined
      : createRunner(jobs, pipeline, { slots: stt.slots, leaseMs: stt.leaseMs, pollMs: stt.pollMs }, logger);
  // On PostgreSQL a queued task is announced to the runners of every process (roles/job-wakeup.ts).
  const nodeId = `node-${randomUUID()}`;
  const announcer = config.databaseUrl ? createJobAnnouncer(db, nodeId, logger) : undefined;
  const syncLimits = {
    maxBytes: limitOf(api, 'createSyncTranscription', 'max_file_bytes'),
    maxSeconds: limitOf(api, 'createSyncTranscription', 'max_duration_seconds'),
  };
  const intake = createIntake({
    db,
    ledger,
    engine,
    files,
    prices: config.prices,
    limits: {
      sync: syncLimits,
      async: { maxBytes: stt.asyncMaxBytes, maxSeconds: stt.asyncMaxSeconds },
      maxConcurrentJobs: config.maxConcurrentJobs,
    },
    wake: () => {
      runner?.wake();
      announcer?.announce();
    },
    onFinal,
  });

  // Real-time streaming: its own decoder threads (started with the first session), sessions settled by its sweeper too.
  const streamEngine = createStreamEngine({ workers: config.streaming.workers, ...stt.pocketsphinx });
  const streams = createStreamService({
    db,
    ledger,
    prices: config.prices,
    config: config.streaming,
    ticketTtlSeconds: limitOf(api, 'createStreamSession', 'ticket_ttl_seconds'),
    engineAvailable: streamEngine.available,
    engineUnavailable: streamEngine.unavailable,
    now: options.now ?? Date.now,
    logger,
  });

  let background: BackgroundWork | undefined;
  const health = healthHandlers({
    db,
    registry,
    version: config.version,
    startedAt,
    role: config.role,
    runningJobs: () => runner?.running() ?? 0,
    runnerActive: () => background?.active() ?? true,
  });
  if (config.role === 'worker') {
    const server = createServer(
      createHealthOnlyApp({
        api,
        getHealth: health.getHealth!,
        validateResponses: config.validateResponses,
        logger,
      }).callback(),
    );
    background = await startBackground();
    return assemble(server, undefined);
  }

  const handlers = checkHandlers(api, {
    ...health,
    ...modelHandlers(registry),
    ...keyHandlers(keys, keyStore),
    ...billingHandlers(db, config.prices),
    ...usageHandlers(db),
    ...transcriptionReadHandlers(transcriptionStore),
    ...transcriptionTaskHandlers(intake, transcriptionStore, jobs, ledger, files),
    ...openAiTranscriptionHandlers(intake, jobs, {
      maxBytes: limitOf(api, 'createOpenAiAudioTranscription', 'max_file_bytes'),
      maxSeconds: stt.asyncMaxSeconds,
    }),
    ...v2TranscriptionHandlers({
      intake,
      store: transcriptionStore,
      jobs,
      links: createResultLinks(secretKey, config.resultLinkTtlSeconds),
      publicUrl: config.publicUrl,
      fallbackOrigin: `http://${config.host}:${config.port}`,
    }),
    ...webhookHandlers(webhooks),
    ...streamHandlers(streams, { publicUrl: config.publicUrl, fallbackOrigin: `http://${config.host}:${config.port}` }),
    ...embeddingHandlers(
      createEmbeddingService({
        engine: embeddingEngine,
        ledger,
        prices: config.prices,
        maxInputs: config.embedding.maxInputs,
        maxRequestTokens: config.embedding.maxRequestTokens,
        maxAccountRequests: config.embedding.maxAccountRequests,
        logger,
      }),
    ),
    ...chatHandlers(chat),
    ...v2ChatHandlers(chat, transcriptChat),
    ...adminHandlers(accounts, accountStore, ledger, keys),
  });

  // In production the request validators are ready before the first requests (compiled in the background); tests and
  // development compile them on first use and spare every process the CPU.
  if (config.environment === 'production') warmRequestValidators(api);
  const koa = new Koa({ proxy: false });
  koa.use(requestId);
  // The access log wraps the error handler: a thrown error has a status only once the handler has rendered it, and
  // the log line carries the status sent.
  koa.use(accessLog(logger));
  koa.use(errorHandler(logger));
  koa.use(serveDocs()); // the built docs site at /docs/, outside the contract's routes
  koa.use(
    dispatch({
      api,
      router: createRouter(api),
      validateRequest: createRequestValidator(api),
      handlers,
      auth: {
        accounts: accountStore,
        keys,
        adminToken: config.adminToken,
        now: options.now ?? Date.now,
        nonces: createSignatureNonces(db),
        failedAuth: createFailedAuthLimit(db, config.failedAuth),
      },
      rateLimit,
      idempotency: createIdempotencyStore(db),
      validateResponses: config.validateResponses,
      logger,
      uploads: { dir: join(config.dataDir, 'uploads'), maxBytes: stt.asyncMaxBytes },
    }),
  );
  const server = createServer(koa.callback());
  const streamServer = attachStreamServer(server, {
    service: streams,
    engine: streamEngine,
    config: config.streaming,
    logger,
  });
  await mkdir(join(config.dataDir, 'uploads'), { recursive: true });
  if (runner) background = await startBackground();
  return assemble(server, streamServer);

  function startBackground(): Promise<BackgroundWork> {
    return startBackgroundWork({
      runner: runner!,
      webhooks,
      streams,
      sweeps: () => [startMediaSweeper(files.media, logger)],
      databaseUrl: config.databaseUrl,
      nodeId,
      logger,
    });
  }

  function assemble(server: Server, streamServer: ReturnType<typeof attachStreamServer> | undefined): App {
    let closed: Promise<void> | undefined;
    async function shutDown(): Promise<void> {
      // Stop accepting first: the listener closes, idle keep-alive connections go, requests in flight may finish.
      // Each step's duration is logged: a shutdown that overruns an orchestrator's grace period says what it waited on.
      const began = performance.now();
      const done = (step: string) => logger.info({ ms: Math.round(performance.now() - began) }, `shutdown: ${step}`);
      const drained = new Promise<void>((resolve) => (server.listening ? server.close(() => resolve()) : resolve()));
      server.closeIdleConnections();
      await Promise.all([background?.stop(), streamServer?.close()]);
      done('jobs handed back and streams closed');
      const cut = setTimeout(() => server.closeAllConnections(), DRAIN_MS);
      await drained;
      clearTimeout(cut);
      done('HTTP connections closed');
      // Engine threads are given their grace to free native memory (a decoder stops between segments), all at once.
      await Promise.all([
        engine.close(),
        embeddingEngine.close(),
        chatEngines.close(),
        streamServer ? undefined : streamEngine.close(),
      ]);
      done('engines closed');
      await db.destroy();
    }
    return {
      config,
      db,
      logger,
      server,
      services: { accounts, keys, ledger, runner, streamEngine },
      close() {
        closed ??= shutDown();
        return closed;
      },
    };
  }
}
