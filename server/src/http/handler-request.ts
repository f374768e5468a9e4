// The request a handler is given. A class rather than an object literal, so the `signal` getter lives once on the
// prototype: a getter in an object literal is a new closure and a new hidden class on every request.
import type { ServerResponse } from 'node:http';
import type { AccountRow } from '../db/account-row.ts';
import type { UploadedFile } from '../media/multipart.ts';
import { disconnectSignal } from './disconnect-signal.ts';
import type { HandlerRequest, OperationId } from './operation.ts';

export class DispatchedRequest implements HandlerRequest<OperationId> {
  upload?: UploadedFile;
  readonly #res: ServerResponse;
  #signal: AbortSignal | undefined;

  constructor(
    readonly operationId: OperationId,
    readonly account: AccountRow | undefined,
    readonly body: never,
    readonly query: never,
    readonly path: never,
    readonly headers: HandlerRequest<OperationId>['headers'],
    readonly requestId: string,
    res: ServerResponse,
  ) {
    this.#res = res;
  }

  /** Made when a handler first asks for it (disconnect-signal.ts); most handlers never do. */
  get signal(): AbortSignal {
    return (this.#signal ??= disconnectSignal(this.#res));
  }
}
