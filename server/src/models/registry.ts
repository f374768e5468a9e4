// The model registry: which model ids this server offers and which engine serves each. The transcription engine is
// always there (embedded PocketSphinx by default); chat and embeddings arrive with their issue and are listed as
// unavailable until configured.
import type { Model } from '../../../generated/client/types.gen.ts';

const CREATED = Math.floor(Date.UTC(2026, 10, 1) / 1000);

/** What the transcription engine declares about itself (see transcriptions/engine/engine.ts). */
export interface TranscriptionEngineInfo {
  kind: string;
  languages: readonly string[];
}

export function createModelRegistry(
  transcription: TranscriptionEngineInfo,
  env: Record<string, string | undefined> = process.env,
) {
  const configured = (name: string) => Boolean(env[name]);
  const models: Model[] = [
    {
      id: 'service-mini',
      object: 'model',
      created: CREATED,
      owned_by: 'scribe',
      type: 'chat',
      status: configured('SCRIBE_MINI_MODEL') ? 'available' : 'unavailable',
    },
    {
      id: 'service-pro',
      object: 'model',
      created: CREATED,
      owned_by: 'scribe',
      type: 'chat',
      status: configured('SCRIBE_PRO_MODEL') ? 'available' : 'unavailable',
    },
    {
      id: 'service-embedding',
      object: 'model',
      created: CREATED,
      owned_by: 'scribe',
      type: 'embedding',
      status: 'unavailable',
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
      status: 'available',
    },
  ];
  return {
    list: (): Model[] => models,
    engineStatus: (type: Model['type']) =>
      models.some((m) => m.type === type && m.status === 'available')
        ? ('available' as const)
        : ('unavailable' as const),
  };
}

export type ModelRegistry = ReturnType<typeof createModelRegistry>;
