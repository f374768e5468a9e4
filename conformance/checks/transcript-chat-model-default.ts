// transcript_chat_model_default: a v2 transcript chat answer names the model that answered — the one the request
// named, or `service-mini` when it named none (the document: "`service-mini` (default) or `service-pro`"). Only
// whole JSON answers are judged; a streamed one carries its model in each chunk and is sse_conformance's.
import { registerCheck, type ResponseContext } from '../core/registry.ts';

/** The document's default model of the transcript chat, written here rather than read from the document under test. */
export const TRANSCRIPT_CHAT_DEFAULT_MODEL = 'service-mini';

export function transcript_chat_model_default({ exchange }: ResponseContext) {
  if (exchange.operationId !== 'createV2TranscriptChatCompletion' || exchange.response.status !== 200) return;
  const sent = exchange.request.body?.kind === 'json' ? exchange.request.body.value : undefined;
  const answer = exchange.response.body as { model?: unknown } | undefined;
  if (!sent || typeof sent !== 'object' || !answer || typeof answer !== 'object') return;
  const requested = (sent as { model?: unknown }).model;
  const expected = typeof requested === 'string' ? requested : TRANSCRIPT_CHAT_DEFAULT_MODEL;
  // a dated version of the name (`service-mini-2026-01`) is that model, as OpenAI-style answers name it
  if (typeof answer.model === 'string' && (answer.model === expected || answer.model.startsWith(`${expected}-`)))
    return;
  return {
    title:
      requested === undefined
        ? 'Transcript chat answered by another model than the default'
        : 'Transcript chat answered by another model',
    message: `${requested === undefined ? 'no model sent (default service-mini)' : `model ${JSON.stringify(requested)} sent`}; the answer names ${JSON.stringify(answer.model)}`,
    severity: 'medium' as const,
  };
}

registerCheck('transcript_chat_model_default', 'response', transcript_chat_model_default);
