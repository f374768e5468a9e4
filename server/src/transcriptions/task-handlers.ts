// v3 task operations: create (sync upload, async link or upload), cancel, and the result in a chosen format.
import type {
  AsyncTranscriptionJsonRequest,
  AsyncTranscriptionMultipartRequest,
  OutputOptions,
  SyncTranscriptionRequest,
  TranscriptionResult,
} from '../../../generated/client/types.gen.ts';
import type { Ledger } from '../billing/ledger.ts';
import { now, parseJson } from '../db/rows.ts';
import { ApiError, errors } from '../http/api-error.ts';
import { parseClientUrl } from '../http/client-url.ts';
import { accountOf, type HandlerGroup, type HandlerRequest } from '../http/operation.ts';
import type { Intake, TaskOptions } from './intake.ts';
import type { JobQueue } from './jobs.ts';
import { parseOutputField, withOutputDefaults } from './output-options.ts';
import { toTranscription, type TranscriptionStore } from './store.ts';
import { toSrt, toText, toVtt } from './subtitles.ts';
import type { TaskFiles } from './task-files.ts';

type TaskFields = SyncTranscriptionRequest | AsyncTranscriptionMultipartRequest | AsyncTranscriptionJsonRequest;

/** A create request's options with the contract's defaults (sync defaults to `lightning`, async to `queue`). */
function optionsOf(fields: TaskFields, mode: 'sync' | 'async', output: OutputOptions): TaskOptions {
  return {
    language: fields.language ?? 'ru',
    languageDefaulted: fields.language === undefined,
    priority: fields.priority ?? (mode === 'sync' ? 'lightning' : 'queue'),
    diarization: fields.diarization ?? false,
    output,
    apiVersion: 'v3',
    mode,
  };
}

const CANCELLABLE = ['created', 'downloading', 'ready'] as const;

type ResultRequest = Pick<HandlerRequest<'getTranscriptionResult'>, 'account' | 'path'>;
/** One body serves all the result operations; each operation's contract fixes which format it may answer. */
type ResultReply = { status: 200; body: never; headers?: Record<string, string> };

export function transcriptionTaskHandlers(
  intake: Intake,
  store: TranscriptionStore,
  jobs: JobQueue,
  ledger: Ledger,
  files: TaskFiles,
): HandlerGroup {
  return {
    createSyncTranscription: async (request) => {
      if (!request.upload) throw errors.missingParameter('file');
      const fields = request.body;
      const options = optionsOf(fields, 'sync', parseOutputField(fields.output));
      const row = await intake.fromUpload(accountOf(request), request.upload, options);
      return { status: 200, body: { data: toTranscription(row) } };
    },

    // The upload form as its own operation (one request media type, so generators send the form).
    createAsyncTranscriptionUpload: async (request) => {
      if (!request.upload) throw errors.missingParameter('file');
      const fields = request.body;
      const options = optionsOf(fields, 'async', parseOutputField(fields.output));
      const row = await intake.fromUpload(accountOf(request), request.upload, options);
      return { status: 202, body: { transcription_id: row.id } };
    },

    createAsyncTranscription: async (request) => {
      const account = accountOf(request);
      if (request.upload) {
        // A multipart form (the SDK types the JSON variant of this body).
        const fields = request.body as unknown as AsyncTranscriptionMultipartRequest;
        const options = optionsOf(fields, 'async', parseOutputField(fields.output));
        const row = await intake.fromUpload(account, request.upload, options);
        return { status: 202, body: { transcription_id: row.id } };
      }
      const body = request.body;
      parseClientUrl(body.url, 'url');
      const row = await intake.fromUrl(account, body.url, optionsOf(body, 'async', withOutputDefaults(body.output)));
      return { status: 202, body: { transcription_id: row.id } };
    },

    cancelTranscription: async (request) => {
      const account = accountOf(request);
      const task = await store.find(account.id, request.path.id);
      if (!task) throw errors.notFound('id', 'transcription');
      const cancelled = await jobs.cancel(task.id, [...CANCELLABLE], now());
      if (!cancelled) {
        throw new ApiError(409, 'invalid_state', `A task in status ${task.status} cannot be cancelled.`, 'id');
      }
      const row = (await jobs.get(task.id))!;
      if (row.reservation_id) await ledger.settle(row.reservation_id, 0, 'Transcription cancelled');
      // A worker that holds the task (downloading) notices at its next step and removes its files itself.
      if (!row.lease_owner) await files.remove(row.id);
      return { status: 200, body: { data: toTranscription(row) } };
    },

    getTranscriptionResult: async (request) => {
      const format = request.query.format ?? 'json';
      // `text` is the contract's other name of `txt` (the name v2 and the client CLI use).
      return answerResult(request, format === 'text' ? 'txt' : format);
    },
    // One operation per format (one response media type each), so generators type and parse the answer.
    getTranscriptionResultJson: async (request) => answerResult(request, 'json'),
    getTranscriptionResultSrt: async (request) => answerResult(request, 'srt'),
    getTranscriptionResultVtt: async (request) => answerResult(request, 'vtt'),
    getTranscriptionResultText: async (request) => answerResult(request, 'txt'),
  };

  async function answerResult(request: ResultRequest, format: 'json' | 'srt' | 'vtt' | 'txt'): Promise<ResultReply> {
    const task = await store.find(accountOf(request).id, request.path.id);
    if (!task) throw errors.notFound('id', 'transcription');
    const result = task.status === 'completed' ? parseJson<TranscriptionResult>(task.result) : null;
    if (!result) {
      throw new ApiError(
        409,
        'invalid_state',
        `The task is ${task.status}; a result exists once it is completed.`,
        'id',
      );
    }
    switch (format) {
      case 'srt':
        return {
          status: 200,
          body: toSrt(result) as never,
          headers: { 'Content-Type': 'application/x-subrip; charset=utf-8' },
        };
      case 'vtt':
        return { status: 200, body: toVtt(result) as never, headers: { 'Content-Type': 'text/vtt; charset=utf-8' } };
      case 'txt':
        return {
          status: 200,
          body: toText(result) as never,
          headers: { 'Content-Type': 'text/plain; charset=utf-8' },
        };
      default:
        return { status: 200, body: toTranscription(task).result! as never };
    }
  }
}
