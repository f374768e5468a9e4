// Reading transcription tasks: status (with result or error) and the list. Creating, cancelling and results arrive
// with the transcription pipeline.
import { errors } from '../http/api-error.ts';
import { accountOf, type HandlerGroup } from '../http/operation.ts';
import { toTranscription, type TranscriptionStore } from './store.ts';

export function transcriptionReadHandlers(store: TranscriptionStore): HandlerGroup {
  return {
    getTranscriptionStatus: async (request) => {
      const row = await store.find(accountOf(request).id, request.path.id);
      if (!row) throw errors.notFound('id', 'transcription');
      return { status: 200, body: { data: toTranscription(row) } };
    },
    listTranscriptions: async (request) => ({
      status: 200,
      body: await store.list(accountOf(request).id, request.query),
    }),
  };
}
