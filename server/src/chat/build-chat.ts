// Text generation: the chat service over the configured engines, chat over a v2 transcript (its free questions and
// the AI analysis of a task created with `prompt`), and their operations on v3, the OpenAI drop-in (chat and the
// Responses API) and v2.
import type { OpenAPIBackend } from 'openapi-backend';
import type { Logger } from 'pino';
import type { Ledger } from '../billing/ledger.ts';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import { limitOf } from '../http/contract-limits.ts';
import type { HandlerGroup } from '../http/operation.ts';
import { createChatService } from './chat-service.ts';
import type { createChatEngines } from './engines.ts';
import { chatHandlers } from './handlers.ts';
import { responsesHandlers } from './responses/handlers.ts';
import { createTranscriptChat } from './v2/transcript-chat.ts';
import { createTranscriptChatStore } from './v2/transcript-chat-store.ts';
import { v2ChatHandlers } from './v2/v2-handlers.ts';

export interface ChatDeps {
  config: Config;
  engines: Awaited<ReturnType<typeof createChatEngines>>;
  db: Database;
  ledger: Ledger;
  api: OpenAPIBackend;
  logger: Logger;
}

export function buildChat({ config, engines, db, ledger, api, logger }: ChatDeps) {
  const chat = createChatService({
    engines,
    ledger,
    prices: config.prices,
    reserveCapTokens: config.chat.reserveCapTokens,
  });
  const transcriptChat = createTranscriptChat({
    db,
    chat,
    store: createTranscriptChatStore(db),
    freeLimit: limitOf(api, 'createV2TranscriptChatCompletion', 'free_mini_requests_per_transcription'),
    logger,
  });
  const handlers: HandlerGroup = {
    ...chatHandlers(chat),
    ...responsesHandlers(chat),
    ...v2ChatHandlers(chat, transcriptChat),
  };
  return { transcriptChat, handlers };
}
