// `POST /v3/embeddings/create` and its OpenAI-compatible twin `POST /v3/embeddings`: the same request, answer and
// errors (the v3 error envelope is OpenAI's), so the official SDKs work with `baseURL = <server>/v3`.
import { accountOf, type HandlerGroup } from '../http/operation.ts';
import type { EmbeddingService } from './service.ts';

export function embeddingHandlers(service: EmbeddingService): HandlerGroup {
  return {
    createEmbedding: async (request) => ({
      status: 200,
      body: await service.create(accountOf(request), request.body, request.requestId, request.signal),
    }),
    createOpenAiEmbedding: async (request) => ({
      status: 200,
      body: await service.create(accountOf(request), request.body, request.requestId, request.signal),
    }),
  };
}
