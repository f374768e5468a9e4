// The transcription pipeline: intake in the request (upload or link, reservation, the task row), the rest in jobs
// run from the durable queue (download, decode, recognise, capture, final events), and the v3, OpenAI-style and v2
// operations over it. An `api` process runs no job: it queues them and, on PostgreSQL, announces them to the
// runners of every process.
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { OpenAPIBackend } from 'openapi-backend';
import type { Ledger } from '../billing/ledger.ts';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import { limitOf } from '../http/contract-limits.ts';
import type { HandlerGroup } from '../http/operation.ts';
import { createAddressGuard } from '../media/address-guard.ts';
import { createMediaStore } from '../media/media-store.ts';
import { createJobAnnouncer } from '../roles/job-wakeup.ts';
import { threadPrioritySupported } from '../workers/thread-priority.ts';
import { createTranscriptionEngine } from './engines.ts';
import { transcriptionReadHandlers } from './handlers.ts';
import { createIntake } from './intake.ts';
import { createJobQueue, UNFINISHED } from './jobs.ts';
import { defaultLanguageOf, openAiTranscriptionHandlers } from './openai-transcription-handlers.ts';
import { createPipeline, type PipelineDeps } from './pipeline.ts';
import { createRunner } from './runner.ts';
import { createTranscriptionStore } from './store.ts';
import { createTaskFiles } from './task-files.ts';
import { transcriptionTaskHandlers } from './task-handlers.ts';
import { createResultLinks } from './v2/result-links.ts';
import { v2TranscriptionHandlers } from './v2/v2-handlers.ts';
import type { SecretKeys } from '../secrets/secret-box.ts';

export interface TranscriptionsDeps {
  config: Config;
  db: Database;
  ledger: Ledger;
  api: OpenAPIBackend;
  secretKeys: SecretKeys;
  /** A task's final state: its webhook events and what else follows it (the v2 AI analysis). */
  onFinal: PipelineDeps['onFinal'];
  logger: Logger;
  /** Whether the data disk is below its free-space threshold (a job failing meanwhile is postponed, not failed). */
  diskLow?: PipelineDeps['diskLow'];
}

export function buildTranscriptions(deps: TranscriptionsDeps) {
  const { config, db, ledger, api, secretKeys, onFinal, logger } = deps;
  const stt = config.transcription;
  const engine = createTranscriptionEngine(stt);
  if (engine.unavailable) {
    const files = engine.kind === 'whisper' ? { whisperModel: stt.whisper.modelPath } : stt.pocketsphinx;
    logger.warn(files, `the speech engine is not available: ${engine.unavailable}`);
  }
  if (stt.workerNice > 0 && !threadPrioritySupported()) {
    logger.warn("SCRIBE_WORKER_NICE is ignored: this platform cannot lower one thread's priority (Linux only)");
  }
  const jobs = createJobQueue(db, { leaseMs: stt.leaseMs });
  const files = createTaskFiles(config.dataDir, createMediaStore(db, UNFINISHED), { runsJobs: config.role !== 'api' });
  const store = createTranscriptionStore(db);
  // One guard for the check at creation and the one before each download.
  const guard = createAddressGuard(stt.urlAllowHosts);
  const pipeline = createPipeline({
    jobs,
    ledger,
    engine,
    files,
    prices: config.prices,
    config: stt,
    guard,
    logger,
    onFinal,
    diskLow: deps.diskLow,
  });
  const runner =
    config.role === 'api'
      ? undefined
      : createRunner(jobs, pipeline, { slots: stt.slots, leaseMs: stt.leaseMs, pollMs: stt.pollMs }, logger);
  const nodeId = `node-${randomUUID()}`;
  const announcer = config.databaseUrl ? createJobAnnouncer(db, nodeId, logger) : undefined;
  const intake = createIntake({
    db,
    ledger,
    engine,
    files,
    prices: config.prices,
    limits: {
      sync: {
        maxBytes: limitOf(api, 'createSyncTranscription', 'max_file_bytes'),
        maxSeconds: limitOf(api, 'createSyncTranscription', 'max_duration_seconds'),
      },
      async: { maxBytes: stt.asyncMaxBytes, maxSeconds: stt.asyncMaxSeconds },
      maxConcurrentJobs: config.maxConcurrentJobs,
    },
    guard,
    wake: () => {
      runner?.wake();
      announcer?.announce();
    },
    onFinal,
  });
  const origin = { publicUrl: config.publicUrl, fallbackOrigin: `http://${config.host}:${config.port}` };
  const handlers = (): HandlerGroup => ({
    ...transcriptionReadHandlers(store),
    ...transcriptionTaskHandlers(intake, store, jobs, ledger, files),
    ...openAiTranscriptionHandlers(intake, jobs, {
      maxBytes: limitOf(api, 'createOpenAiAudioTranscription', 'max_file_bytes'),
      maxSeconds: stt.asyncMaxSeconds,
      defaultLanguage: defaultLanguageOf(engine),
    }),
    ...v2TranscriptionHandlers({
      intake,
      store,
      jobs,
      links: createResultLinks(secretKeys, config.resultLinkTtlSeconds),
      ...origin,
    }),
  });
  return { engine, files, runner, nodeId, handlers };
}

export type TranscriptionsPart = ReturnType<typeof buildTranscriptions>;
