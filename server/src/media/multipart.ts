// Reads a multipart/form-data upload (one file plus text fields) without ever holding the file in memory: the file part
// is streamed to a randomly named file on disk and its size limit is enforced while the bytes arrive, so an oversized
// upload is refused after at most the limit has been written, and nothing is left behind on any failure. The raw body
// and the file are hashed (SHA-256) as they pass, so a v2 signature and an Idempotency-Key can cover what was sent
// without the upload ever being held in memory.
import { createHash, randomUUID } from 'node:crypto';
import { createWriteStream, type WriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { extname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import busboy from 'busboy';
import { ApiError, errors } from '../http/api-error.ts';
import { insufficientStorage } from '../http/infrastructure-errors.ts';
import type { SpaceCheck } from './free-space.ts';
import { megabytes } from './megabytes.ts';

export interface UploadedFile {
  /** Where the file was written (a random name inside `dir`; never the client's file name). */
  path: string;
  /** The client's file name (base name only), or '' when the part had none. */
  filename: string;
  size: number;
  /** The part's declared Content-Type (`text/plain` when the part declares none, as busboy reports it). */
  mimeType: string;
  /** Lowercase hex SHA-256 of the file's bytes. */
  sha256: string;
}

export interface MultipartUpload {
  /** Every text field sent once (a name sent twice is refused), except names ending in `[]`. */
  fields: Record<string, string>;
  /** Every field whose name ends in `[]` (e.g. `timestamp_granularities[]`), its values in the order sent. */
  lists: Record<string, string[]>;
  file?: UploadedFile;
  /** Lowercase hex SHA-256 of the whole request body as received (boundaries included): what a v2 signature covers. */
  bodySha256: string;
}

export interface MultipartOptions {
  /** Directory the file is written to (created if missing). */
  dir: string;
  /** Largest accepted file in bytes; one byte more is refused with 400 file_too_large. */
  maxFileBytes: number;
  /** Name of the one accepted file field; default `file`. */
  fileField?: string;
  /** Longest accepted text field value in bytes; default 64 KiB. */
  maxFieldBytes?: number;
  /** Most text fields accepted; default 100. */
  maxFields?: number;
  /** The data dir's free space: an upload that would not leave the threshold free is refused before it is read. */
  space?: SpaceCheck;
}

/** After a refusal the rest of the body is read and thrown away (so the client can read the 400), up to this much. */
const DRAIN_LIMIT_BYTES = 16 * 1024 * 1024;

export function fileTooLarge(maxFileBytes: number, param = 'file'): ApiError {
  const mb = megabytes(maxFileBytes);
  return new ApiError(400, 'file_too_large', `The file is larger than ${mb} MB; at most ${mb} MB is accepted.`, param);
}

/** Removes an upload's file from disk (no error when there is none or it is already gone). */
export async function removeUpload(upload: { file?: UploadedFile } | undefined): Promise<void> {
  if (upload?.file) await rm(upload.file.path, { force: true });
}

/** Keeps only a short, plain extension of the client's name (a hint for the demuxer); everything else is random. */
function safeExtension(filename: string | undefined): string {
  const ext = extname(filename ?? '').toLowerCase();
  return /^\.[a-z0-9]{1,8}$/.test(ext) ? ext : '';
}

/** Reads and discards what is left of the request body, destroying the connection if the client keeps sending. */
function discardRest(req: IncomingMessage): void {
  if (req.readableEnded || req.destroyed) return;
  let discarded = 0;
  req.on('data', (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > DRAIN_LIMIT_BYTES) req.destroy();
  });
  req.resume();
}

async function discardFile(writer: WriteStream, path: string): Promise<void> {
  if (!writer.closed) {
    await new Promise<void>((resolve) => {
      writer.once('close', () => resolve());
      writer.destroy();
    });
  }
  await rm(path, { force: true });
}

export async function readMultipartUpload(req: IncomingMessage, options: MultipartOptions): Promise<MultipartUpload> {
  const fileField = options.fileField ?? 'file';
  const maxFieldBytes = options.maxFieldBytes ?? 64 * 1024;
  const maxFields = options.maxFields ?? 100;

  const contentType = req.headers['content-type'] ?? '';
  if (contentType.split(';')[0]?.trim().toLowerCase() !== 'multipart/form-data') {
    discardRest(req);
    throw errors.unsupportedMediaType(contentType, ['multipart/form-data']);
  }
  // The body's declared size is set aside before a byte of it is written (a chunked body, of unknown size, only needs
  // the threshold kept); given back once the file is written or abandoned.
  const giveBack = options.space ? await options.space.hold(Number(req.headers['content-length']) || 0) : () => {};
  if (!giveBack) {
    discardRest(req);
    throw insufficientStorage();
  }
  try {
    return await receive(req, options, fileField, maxFieldBytes, maxFields);
  } finally {
    giveBack();
  }
}

async function receive(
  req: IncomingMessage,
  options: MultipartOptions,
  fileField: string,
  maxFieldBytes: number,
  maxFields: number,
): Promise<MultipartUpload> {
  const { dir, maxFileBytes } = options;
  let parser: busboy.Busboy;
  try {
    // busboy flags a value that reaches its limit exactly, so each limit is one byte above the accepted maximum.
    parser = busboy({
      headers: req.headers,
      limits: { fileSize: maxFileBytes + 1, fieldSize: maxFieldBytes + 1, fields: maxFields },
    });
  } catch {
    discardRest(req);
    throw errors.invalidParameter('body', 'The multipart Content-Type has no valid boundary.');
  }
  await mkdir(dir, { recursive: true });

  return new Promise<MultipartUpload>((resolve, reject) => {
    const fields = Object.create(null) as Record<string, string>;
    const lists = Object.create(null) as Record<string, string[]>;
    let settled = false;
    let fileStarted = false;
    let file: UploadedFile | undefined;
    let fileWritten: Promise<void> = Promise.resolve();
    let writer: WriteStream | undefined;
    let writerPath = '';
    const bodyHash = createHash('sha256');

    const fail = (error: unknown) => {
      if (settled) return;
      settled = true;
      // Often called from inside busboy's own callbacks, which go on using the parser: tear down once they return.
      queueMicrotask(() => {
        req.unpipe(parser);
        parser.on('error', () => {});
        parser.destroy();
        discardRest(req);
        const cleanup = writer ? discardFile(writer, writerPath) : Promise.resolve();
        void cleanup.catch(() => {}).finally(() => reject(error));
      });
    };
    const malformed = (error: Error) =>
      fail(errors.invalidParameter('body', `The multipart body is malformed (${error.message.toLowerCase()}).`));

    parser.on('file', (name, stream, info) => {
      if (settled) {
        stream.resume();
        return;
      }
      if (name !== fileField) {
        stream.resume();
        fail(
          errors.invalidParameter(
            name || 'body',
            `Unexpected file field "${name ?? ''}"; send the file as "${fileField}".`,
          ),
        );
        return;
      }
      if (fileStarted) {
        stream.resume();
        fail(errors.invalidParameter(fileField, `Send exactly one file in "${fileField}".`));
        return;
      }
      fileStarted = true;
      writerPath = join(dir, `upload-${randomUUID()}${safeExtension(info.filename)}`);
      writer = createWriteStream(writerPath, { flags: 'wx', mode: 0o600 });
      let size = 0;
      const fileHash = createHash('sha256');
      stream.on('limit', () => fail(fileTooLarge(maxFileBytes, fileField)));
      stream.on('data', (chunk: Buffer) => {
        size += chunk.length;
        fileHash.update(chunk);
        if (size > maxFileBytes) fail(fileTooLarge(maxFileBytes, fileField));
      });
      const path = writerPath;
      fileWritten = pipeline(stream, writer).then(
        () => {
          const sha256 = fileHash.digest('hex');
          file = { path, filename: info.filename ?? '', size, mimeType: info.mimeType, sha256 };
        },
        (error: Error & { syscall?: string }) => {
          // A disk error is the server's (a full disk is 503 insufficient_storage, anything else 500); anything else is a body that ended inside the file.
          if (error.syscall) fail(error);
          else malformed(error);
          throw error;
        },
      );
      fileWritten.catch(() => {});
    });

    parser.on('field', (name, value, info) => {
      if (settled) return;
      if (!name) return fail(errors.invalidParameter('body', 'A multipart part has no name.'));
      if (info.valueTruncated) {
        return fail(errors.invalidParameter(name, `${name} is longer than ${maxFieldBytes} bytes.`));
      }
      if (name === fileField) {
        return fail(errors.invalidParameter(name, `${name} must be a file (a part with a filename).`));
      }
      if (name.endsWith('[]')) (lists[name] ??= []).push(value);
      else if (Object.hasOwn(fields, name)) fail(errors.invalidParameter(name, `${name} is given more than once.`));
      else fields[name] = value;
    });

    parser.on('fieldsLimit', () =>
      fail(errors.invalidParameter('body', `The form has more than ${maxFields} fields.`)),
    );
    parser.on('error', malformed);
    parser.on('close', () => {
      if (settled) return;
      fileWritten.then(
        () => {
          if (settled) return;
          settled = true;
          const bodySha256 = bodyHash.digest('hex');
          resolve(file ? { fields, lists, file, bodySha256 } : { fields, lists, bodySha256 });
        },
        () => {},
      );
    });

    const interrupted = () =>
      fail(errors.invalidParameter('body', 'The upload was interrupted before the body was complete.'));
    req.on('aborted', interrupted);
    req.on('error', interrupted);
    req.on('close', () => {
      if (!req.complete) interrupted();
    });
    // Every chunk busboy is given is hashed too (the parser has consumed them all before it closes).
    req.on('data', (chunk: Buffer) => bodyHash.update(chunk));
    req.pipe(parser);
  });
}
