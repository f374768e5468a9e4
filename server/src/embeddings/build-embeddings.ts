// Embeddings: the configured engine (its workers start with the first request, see use-lite/engine.ts) and the
// fair per-account service behind the embedding operations.
import type { Logger } from 'pino';
import type { Ledger } from '../billing/ledger.ts';
import type { Config } from '../config.ts';
import type { HandlerGroup } from '../http/operation.ts';
import { createEmbeddingEngine } from './engines.ts';
import { embeddingHandlers } from './handlers.ts';
import { createEmbeddingService } from './service.ts';

export function buildEmbeddings(config: Config, ledger: Ledger, logger: Logger) {
  const engine = createEmbeddingEngine(config.embedding);
  const handlers = (): HandlerGroup =>
    embeddingHandlers(
      createEmbeddingService({
        engine,
        ledger,
        prices: config.prices,
        maxInputs: config.embedding.maxInputs,
        maxRequestTokens: config.embedding.maxRequestTokens,
        maxAccountRequests: config.embedding.maxAccountRequests,
        logger,
      }),
    );
  return { engine, handlers };
}
