// Which engine serves `service-embedding`, from config (SCRIBE_EMBEDDING_MODEL): unset or `use-lite` → the embedded
// Universal Sentence Encoder lite; `openai:<base-url>#<model>` → an OpenAI-compatible upstream (OpenAI, a vLLM or
// text-embeddings-inference server, a second Scribe), with SCRIBE_EMBEDDING_API_KEY as its Bearer key.
import type { EmbeddingConfig } from '../config.ts';
import type { EmbeddingEngine } from './engine.ts';
import { createOpenAiCompatibleEmbeddingEngine } from './openai-compatible.ts';
import { createUseLiteEngine } from './use-lite/engine.ts';

export function createEmbeddingEngine(config: EmbeddingConfig): EmbeddingEngine {
  if (config.model === 'use-lite') return createUseLiteEngine({ workers: config.workers });
  const upstream = /^openai:(https?:\/\/[^#]+)#(.+)$/.exec(config.model);
  if (upstream) {
    return createOpenAiCompatibleEmbeddingEngine({
      baseUrl: upstream[1]!,
      model: upstream[2]!,
      apiKey: config.upstreamApiKey ?? '',
    });
  }
  throw new Error(`SCRIBE_EMBEDDING_MODEL must be "use-lite" or "openai:<base-url>#<model>", got "${config.model}"`);
}
