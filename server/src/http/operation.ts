// Handler types derived from the generated client, so request and response shapes come from the contract: one
// handler per operationId, typed by that operation's body, query, path and response.
import type * as sdk from '../../../generated/client/sdk.gen.ts';
import type { AccountRow } from '../db/account-row.ts';
import type { UploadedFile } from '../media/multipart.ts';

export type OperationId = keyof typeof sdk;

type SdkOptions<K extends OperationId> = NonNullable<Parameters<(typeof sdk)[K]>[0]>;
type Field<T, F extends string> = T extends { [P in F]?: infer V } ? V : undefined;

export type RequestBody<K extends OperationId> = Field<SdkOptions<K>, 'body'>;
export type RequestQuery<K extends OperationId> = NonNullable<Field<SdkOptions<K>, 'query'>>;
export type RequestPath<K extends OperationId> = Field<SdkOptions<K>, 'path'>;
type DataOf<T> = T extends { data: unknown } ? T['data'] : never;
type Returned<K extends OperationId> = Awaited<ReturnType<(typeof sdk)[K]>>;
/**
 * The body a handler answers with: the SDK's `data`, or, for an operation answered only with server-sent events (its
 * SDK function returns `{ stream }`), the stream the handler writes.
 */
export type ResponseBody<K extends OperationId> = [DataOf<Returned<K>>] extends [never]
  ? ReadableStream<Uint8Array>
  : NonNullable<DataOf<Returned<K>>>;

export interface HandlerRequest<K extends OperationId> {
  operationId: K;
  account: AccountRow | undefined;
  body: RequestBody<K>;
  query: RequestQuery<K>;
  path: RequestPath<K>;
  headers: Record<string, string | string[] | undefined>;
  requestId: string;
  /** Aborts when the client goes away before the response is finished (a handler stops its work then). */
  signal: AbortSignal;
  /** The file of a multipart request, on disk; a handler that keeps it moves it away (the rest is deleted). */
  upload?: UploadedFile;
}

export interface Reply<K extends OperationId> {
  status: number;
  body: ResponseBody<K>;
  headers?: Record<string, string>;
}

export type Handler<K extends OperationId> = (request: HandlerRequest<K>) => Promise<Reply<K>>;
export type Handlers = { [K in OperationId]: Handler<K> };
export type HandlerGroup = Partial<Handlers>;

/** The account of an authenticated request (the operation's security guarantees one). */
export function accountOf(request: { account: AccountRow | undefined }): AccountRow {
  if (!request.account) throw new Error('handler of an authenticated operation called without an account');
  return request.account;
}
