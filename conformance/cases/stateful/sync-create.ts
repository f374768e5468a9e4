// Scenario: a sync transcription's links. The sync create answers the finished task, whose result "is then read
// from the status endpoint": its read links must answer (ensure_resource_availability), as the async create's do.
// And an upload without `language` gets the default `ru`: transcribed as `ru`, or refused as unsupported_language
// naming `ru` by a server that cannot transcribe it (sync_create_ready; the case `default-language`).
import type { RunContext } from '../../core/run-context.ts';
import { call, followReadLinks, needs, type Actor } from './steps.ts';

export async function syncCreateLinks(run: RunContext, actor: Actor): Promise<void> {
  if (!needs(run, 'sync create links', ['createSyncTranscription', 'getTranscriptionStatus'])) return;
  const created = await call(run, actor, 'createSyncTranscription', {
    label: 'transcribe an upload at once',
    mediaType: 'multipart/form-data',
    body: { file: 'audio', language: 'en' },
    expectation: { kind: 'status', statuses: [200], reason: 'a short English upload with money on the account' },
  });
  if (created?.response.status !== 200) {
    run.recorder.skipped({
      what: 'sync create links',
      phase: 'stateful',
      reason: `the sync create answered ${created?.response.status ?? 'nothing'}`,
    });
    return;
  }
  run.trace(
    'ensure_resource_availability',
    { created, probes: await followReadLinks(run, actor, created) },
    'stateful',
    'createSyncTranscription',
  );
}

export async function syncCreateDefaultLanguage(run: RunContext, actor: Actor): Promise<void> {
  if (!needs(run, 'a sync create without language', ['createSyncTranscription'])) return;
  await call(run, actor, 'createSyncTranscription', {
    label: 'transcribe an upload without language',
    mediaType: 'multipart/form-data',
    body: { file: 'audio' },
    case: 'default-language',
    expectation: {
      kind: 'status',
      statuses: [200, 400],
      reason: 'an upload without language: transcribed as ru, or refused when ru is not transcribed here',
    },
  });
}
