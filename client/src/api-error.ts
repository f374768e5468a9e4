// The error the helpers throw for an HTTP answer that is not a success: the status and the contract's error body
// (v3 `{ error: { type, code, message, param } }`, v2/v1 `{ error, message, errors }`) as the server sent it.
import type { ErrorResponse, V2ErrorResponse } from '../../generated/client/types.gen.ts';

export type ScribeErrorBody = ErrorResponse | V2ErrorResponse;

const isV3 = (body: unknown): body is ErrorResponse =>
  typeof body === 'object' && body !== null && typeof (body as { error?: unknown }).error === 'object';
const isV2 = (body: unknown): body is V2ErrorResponse =>
  typeof body === 'object' && body !== null && typeof (body as { error?: unknown }).error === 'string';

export class ScribeApiError extends Error {
  override readonly name = 'ScribeApiError';
  /** The v3 error code (`insufficient_balance`) or the v2 error kind (`VALIDATION_ERROR`), when the body has one. */
  readonly code: string | undefined;

  /** `status` is 0 when no answer came (the server unreachable); `message` then says why. */
  constructor(
    readonly status: number,
    readonly body: ScribeErrorBody | undefined,
    message?: string,
  ) {
    const code = isV3(body) ? body.error.code : isV2(body) ? body.error : undefined;
    const said = isV3(body) ? body.error.message : isV2(body) ? body.message : undefined;
    super(message ?? `${status}${code ? ` ${code}` : ''}: ${said ?? 'the server answered without an error body'}`);
    this.code = code;
  }

  /** Builds the error from what a generated SDK call returned (`{ error, response }`). */
  static from(response: Response | undefined, error: unknown): ScribeApiError {
    if (!response) {
      const cause = (error as { cause?: { code?: string; message?: string } } | undefined)?.cause;
      const reason = cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
      return new ScribeApiError(0, undefined, `no answer from the server: ${reason}`);
    }
    return new ScribeApiError(response.status, isV3(error) || isV2(error) ? error : undefined);
  }
}
