// The error object a failed task carries (the v3 error model), made from whatever ended the task: a contract error
// raised on the way (unsupported_format, duration_exceeded, insufficient_balance, …), a refused or failed download,
// or an engine failure (task_failed, with no internal detail). The `type` follows the status the same error would
// have had as an HTTP answer.
import type { ErrorObject } from '../../../generated/client/types.gen.ts';
import { ApiError } from '../http/api-error.ts';
import { EngineError } from './engine/engine.ts';
import { errorTypeOf } from '../http/render-error.ts';

export const taskFailures = {
  downloadFailed: (message: string) => new ApiError(400, 'download_failed', message, 'url'),
  /**
   * A language the engine cannot serve. When the request left `language` out, the contract's default was applied: the
   * message says so, since the caller never named that language, and says what to send instead.
   */
  unsupportedLanguage: (language: string, supported: readonly string[], defaulted = false) => {
    const refused = defaulted
      ? `No language was sent, so the default ${language} was applied; this server does not transcribe it.`
      : `The language ${language} is not supported by this server's transcription engine.`;
    const example = supported[0] ?? 'en';
    const advice = `Supported: ${supported.join(', ')}. Send the language of the speech, for example language=${example}.`;
    return new ApiError(400, 'unsupported_language', `${refused} ${advice}`, 'language');
  },
  fileTooLarge: (limitBytes: number) =>
    new ApiError(400, 'file_too_large', `The file is larger than ${Math.round(limitBytes / 1048576)} MB.`, 'file'),
  durationExceeded: (limitSeconds: number, actual: number) =>
    new ApiError(
      400,
      'duration_exceeded',
      `The audio is ${Math.round(actual)} s long; at most ${limitSeconds} s (${limitSeconds / 60} min) are accepted here.`,
      'file',
    ),
  /** The decode ran past the limit (it stops a little after it): the container's stated duration, if any, was wrong. */
  decodedTooLong: (limitSeconds: number, declared: number | null | undefined) =>
    new ApiError(
      400,
      'duration_exceeded',
      `The decoded audio is longer than the limit of ${limitSeconds} s (${limitSeconds / 60} min)` +
        (Number(declared) > 0 ? `, although the file states ${Math.round(Number(declared))} s.` : '.'),
      'file',
    ),
  /** The engine cannot run on this machine at all (not installed): refused before anything is reserved. */
  engineMissing: (reason: string) =>
    new ApiError(503, 'engine_unavailable', `The transcription engine is not available on this server: ${reason}.`),
  engineUnavailable: () =>
    new ApiError(
      503,
      'engine_unavailable',
      'The transcription engine is not available; the reservation was released and nothing was charged.',
    ),
  taskFailed: () =>
    new ApiError(500, 'task_failed', 'Recognition failed; the reservation was released and nothing was charged.'),
};

/** Engine failures that are the service's availability, not the task's: the contract's 503 engine_unavailable. */
const UNAVAILABLE = new Set(['engine_unavailable', 'upstream_unreachable']);

export function taskErrorOf(error: unknown): ErrorObject {
  const known =
    error instanceof ApiError && error.code !== 'internal_error'
      ? error
      : error instanceof EngineError && UNAVAILABLE.has(error.code)
        ? taskFailures.engineUnavailable()
        : taskFailures.taskFailed();
  return {
    type: errorTypeOf(known.status),
    code: known.code as ErrorObject['code'],
    message: known.message,
    param: known.param,
  };
}
