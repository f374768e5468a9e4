// Scenario: uploads waiting their turn. "A directly uploaded file skips `created` and `downloading`: the task becomes
// `ready` immediately", but a server that has a worker free takes it on at once, and its reads show `processing`
// before the suite can see `ready`. Four uploads sent together on one account outnumber what a small server works
// on at once: each is read right after its create, so the ones still waiting show their first state (judged by
// state_machine_conformance as uploads: never `created` or `downloading`); then they are cancelled (or, already
// taken on, left to finish) so they do not hold the server's workers.
import type { RunContext } from '../../core/run-context.ts';
import type { Exchange } from '../../core/types.ts';
import { bodyOf, call, type Actor, needs } from './steps.ts';

const UPLOADS = 4;

export async function queuedUploads(run: RunContext, actor: Actor): Promise<void> {
  if (!needs(run, 'queued uploads', ['createAsyncTranscription', 'getTranscriptionStatus'])) return;
  const tasks = await Promise.all(
    Array.from({ length: UPLOADS }, async (_, i) => {
      const created = await call(run, actor, 'createAsyncTranscription', {
        label: `upload ${i + 1} of ${UPLOADS} sent together`,
        mediaType: 'multipart/form-data',
        body: { file: 'audio', language: 'en', priority: 'queue' },
        expectation: { kind: 'status', statuses: [202], reason: 'an English upload with money on the account' },
      });
      const id = bodyOf<{ transcription_id?: string }>(created)?.transcription_id;
      if (!id) return undefined;
      const read = await call(run, actor, 'getTranscriptionStatus', {
        label: `read upload ${i + 1} right after its create`,
        path: { id },
      });
      return { id, observations: read ? [read] : [] };
    }),
  );
  for (const task of tasks) {
    if (!task) continue;
    const observations: Exchange[] = [...task.observations];
    if (run.isSelected('cancelTranscription')) {
      const cancelled = await call(run, actor, 'cancelTranscription', {
        label: 'cancel an upload that waited its turn',
        path: { id: task.id },
        expectation: { kind: 'status', statuses: [200, 409], reason: 'a task not yet final, or one already taken on' },
      });
      if (cancelled?.response.status === 200) observations.push(cancelled);
    }
    run.trace('state_machine_conformance', { observations, upload: true }, 'stateful', 'getTranscriptionStatus');
  }
}
