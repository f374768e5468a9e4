// Real-time streaming: the decoder threads (started with the first session), the session service (tickets, billing,
// the sweeper that settles sessions a dead node left) and the stream-create operation; the WebSocket server is
// attached to an API node's HTTP server.
import type { Server } from 'node:http';
import type { OpenAPIBackend } from 'openapi-backend';
import type { Logger } from 'pino';
import type { Ledger } from '../billing/ledger.ts';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import { limitOf } from '../http/contract-limits.ts';
import type { HandlerGroup } from '../http/operation.ts';
import { streamHandlers } from './handlers.ts';
import { createStreamService } from './session-service.ts';
import type { TranscriptionEngine } from '../transcriptions/engine/engine.ts';
import { isWhisperEngine } from '../transcriptions/engine/whisper/engine.ts';
import { createStreamEngine, type StreamEngine } from './stream-engine.ts';
import { createWhisperStreamEngine, unavailableStreamEngine } from './whisper-stream-engine.ts';
import { attachStreamServer } from './stream-server.ts';

export interface StreamingDeps {
  config: Config;
  db: Database;
  ledger: Ledger;
  api: OpenAPIBackend;
  now: () => number;
  logger: Logger;
  /** The transcription engine: streams run on it when it is Whisper, else on PocketSphinx's streaming decoder. */
  transcriptionEngine: TranscriptionEngine;
}

/** Streams run on the Whisper model when one is configured (an unusable one makes streaming unavailable too). */
function streamEngineFor(config: Config, transcription: TranscriptionEngine): StreamEngine {
  if (config.transcription.whisper.modelPath) {
    if (isWhisperEngine(transcription)) return createWhisperStreamEngine(transcription);
    return unavailableStreamEngine(transcription.unavailable ?? 'the whisper engine is not available');
  }
  return createStreamEngine({ workers: config.streaming.workers, ...config.transcription.pocketsphinx });
}

export function buildStreaming({ config, db, ledger, api, now, logger, transcriptionEngine }: StreamingDeps) {
  const engine = streamEngineFor(config, transcriptionEngine);
  const service = createStreamService({
    db,
    ledger,
    prices: config.prices,
    config: config.streaming,
    ticketTtlSeconds: limitOf(api, 'createStreamSession', 'ticket_ttl_seconds'),
    engineAvailable: engine.available,
    engineUnavailable: engine.unavailable,
    now,
    logger,
  });
  const links = { publicUrl: config.publicUrl, fallbackOrigin: `http://${config.host}:${config.port}` };
  const handlers: HandlerGroup = streamHandlers(service, links);
  const attach = (server: Server) => attachStreamServer(server, { service, engine, config: config.streaming, logger });
  return { engine, service, handlers, attach };
}

export type StreamingPart = ReturnType<typeof buildStreaming>;
