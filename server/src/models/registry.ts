// The model registry: which model ids this server offers and which engine serves each. The transcription engine is
// always there (embedded PocketSphinx by default) and so is the embedding engine (embedded USE lite by default); a
// chat model is listed as unavailable until an engine is configured for it (no chat weights ship with the server).
import type { Model } from '../../../generated/client/types.gen.ts';

const CREATED = Math.floor(Date.UTC(2026, 10, 1) / 1000);

/** What the transcription engine declares about itself (see transcriptions/engine/engine.ts). */
export interface TranscriptionEngineInfo {
  kind: string;
  languages: readonly string[];
  /** Why it cannot run here (not installed); absent when it can. */
  unavailable?: string | undefined;
}

/** What the embedding engine declares about itself (see embeddings/engine.ts); its status can change while running. */
export interface EmbeddingEngineInfo {
  kind: string;
  contextWindow: number;
  status(): 'available' | 'unavailable';
}

/** What a chat engine declares about itself (see chat/engine/engine.ts); absent = the model is not configured. */
export interface ChatEngineInfo {
  kind: string;
  contextWindow: number | undefined;
}

export function createModelRegistry(
  transcription: TranscriptionEngineInfo,
  embedding: EmbeddingEngineInfo,
  chat: Partial<Record<'service-mini' | 'service-pro', ChatEngineInfo>>,
) {
  const chatModel = (id: 'service-mini' | 'service-pro'): Model => {
    const engine = chat[id];
    return {
      id,
      object: 'model',
      created: CREATED,
      owned_by: 'scribe',
      type: 'chat',
      ...(engine?.contextWindow ? { context_window: engine.contextWindow } : {}),
      ...(engine ? { engine: engine.kind } : {}),
      status: engine ? 'available' : 'unavailable',
    };
  };
  const models: Model[] = [
    chatModel('service-mini'),
    chatModel('service-pro'),
    {
      id: 'service-embedding',
      object: 'model',
      created: CREATED,
      owned_by: 'scribe',
      type: 'embedding',
      context_window: embedding.contextWindow,
      engine: embedding.kind,
      // Read on every listing (and by /health): the engine reports whether it can serve now.
      get status() {
        return embedding.status();
      },
    },
    {
      id: 'service-transcribe',
      object: 'model',
      created: CREATED,
      owned_by: 'scribe',
      type: 'transcription',
      // An engine that accepts any language (["*"], an upstream that decides) lists none: the contract's codes are
      // real language codes.
      ...(transcription.languages.includes('*') ? {} : { languages: [...transcription.languages] }),
      engine: transcription.kind,
      status: transcription.unavailable ? 'unavailable' : 'available',
    },
  ];
  return {
    list: (): Model[] => models,
    /** Why an engine that is configured cannot serve, per engine type (for /health). */
    unavailableReasons: (): Partial<Record<Model['type'], string>> =>
      transcription.unavailable ? { transcription: transcription.unavailable } : {},
    engineStatus: (type: Model['type']) =>
      models.some((m) => m.type === type && m.status === 'available')
        ? ('available' as const)
        : ('unavailable' as const),
  };
}

export type ModelRegistry = ReturnType<typeof createModelRegistry>;
