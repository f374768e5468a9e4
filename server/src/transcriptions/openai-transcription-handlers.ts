// `POST /v3/audio/transcriptions`, OpenAI's speech-to-text call: the upload becomes an ordinary v3 sync task (priority
// `lightning`, reserved at intake and captured by the job, listed with mode `sync`), the request waits for the task's
// final state, and the transcript is answered in the form `response_format` asks for. A task that fails is answered
// with the error it stored, with the HTTP status that error stands for.
import type {
  ErrorObject,
  ErrorType,
  OpenAiAudioTranscriptionRequest,
  TranscriptionResult,
} from '../../../generated/client/types.gen.ts';
import { parseJson } from '../db/rows.ts';
import { ApiError, errors } from '../http/api-error.ts';
import { accountOf, type HandlerGroup } from '../http/operation.ts';
import type { Intake, TaskOptions } from './intake.ts';
import type { JobQueue, JobRow } from './jobs.ts';
import { openAiAnswer } from './openai-transcription-format.ts';
import { withOutputDefaults } from './output-options.ts';
import { waitForFinal } from './task-completion.ts';

export interface OpenAiTranscriptionLimits {
  /** 25 MB as on OpenAI: the operation's `x-limits.max_file_bytes`, also enforced while the upload is read. */
  maxBytes: number;
  /** The async duration limit (SCRIBE_ASYNC_MAX_SECONDS), which this endpoint uses although its tasks are sync. */
  maxSeconds: number;
  /**
   * The language of a request without one: `auto` when the engine detects it (as OpenAI does), else the engine's one
   * language, else `ru` (defaultLanguageOf).
   */
  defaultLanguage: string;
}

const STATUS_OF_TYPE: Record<ErrorType, number> = {
  invalid_request_error: 400,
  authentication_error: 401,
  insufficient_quota: 402,
  permission_error: 403,
  not_found_error: 404,
  rate_limit_error: 429,
  server_error: 500,
};

/** The answer to a task that did not complete: its stored error (task-errors.ts derived its `type` from a status). */
function failureOf(task: JobRow): ApiError {
  if (task.status === 'cancelled') {
    return new ApiError(409, 'invalid_state', 'The task was cancelled before its transcript was ready.', null);
  }
  const error = parseJson<ErrorObject>(task.error);
  if (!error) return errors.internal();
  const status = error.code === 'engine_unavailable' ? 503 : (STATUS_OF_TYPE[error.type] ?? 500);
  return new ApiError(status, error.code, error.message, error.param);
}

/**
 * The language of a request that names none. OpenAI detects it: an engine that detects too is asked to (`auto`); one
 * that recognises exactly one language is asked for that one (an OpenAI caller that omits `language` gets its
 * transcript), and any other engine for v3's default, `ru`.
 */
export function defaultLanguageOf(engine: { detectsLanguage?: boolean; languages: readonly string[] }): string {
  if (engine.detectsLanguage) return 'auto';
  const [only] = engine.languages;
  return engine.languages.length === 1 && only !== '*' ? only! : 'ru';
}

function optionsOf(fields: OpenAiAudioTranscriptionRequest, limits: OpenAiTranscriptionLimits): TaskOptions {
  const prompt = fields.prompt?.trim();
  return {
    // OpenAI detects the language; here the engine does when it can (`auto`), else the one language it has, else v3's
    // `ru` (build-transcriptions.ts picks it once: defaultLanguageOf).
    language: fields.language ?? limits.defaultLanguage,
    priority: 'lightning',
    diarization: false,
    // The task keeps every word (subtitles and verbose_json are built from them); the v3 status shows the defaults.
    output: withOutputDefaults(undefined),
    // The prompt guides the vocabulary: one term, so an OpenAI-compatible upstream receives it back unchanged and
    // PocketSphinx boosts its dictionary words.
    ...(prompt ? { terms: [prompt] } : {}),
    limits,
    apiVersion: 'v3',
    mode: 'sync',
  };
}

export function openAiTranscriptionHandlers(
  intake: Intake,
  jobs: JobQueue,
  limits: OpenAiTranscriptionLimits,
): HandlerGroup {
  return {
    createOpenAiAudioTranscription: async (request) => {
      if (!request.upload) throw errors.missingParameter('file');
      const fields = request.body;
      const created = await intake.fromUpload(accountOf(request), request.upload, optionsOf(fields, limits));
      const task = await waitForFinal(jobs, created.id);
      const result = task.status === 'completed' ? parseJson<TranscriptionResult>(task.result) : null;
      if (!result) throw failureOf(task);
      const answer = openAiAnswer(
        result,
        fields.response_format ?? 'json',
        fields['timestamp_granularities[]'] ?? ['segment'],
      );
      if (answer.contentType === undefined) return { status: 200, body: answer.body };
      // A text body: dispatch sends strings as they are (the handler types know only the JSON variants).
      return { status: 200, body: answer.body as never, headers: { 'Content-Type': answer.contentType } };
    },
  };
}
