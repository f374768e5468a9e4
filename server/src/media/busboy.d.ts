// busboy 1.6 ships no types and @types/busboy is not installed: this declares the part of its API multipart.ts uses.
declare module 'busboy' {
  import type { IncomingHttpHeaders } from 'node:http';
  import type { Readable, Writable } from 'node:stream';

  namespace busboy {
    interface Limits {
      fieldSize?: number;
      fields?: number;
      fileSize?: number;
      files?: number;
      parts?: number;
      headerPairs?: number;
    }
    interface Config {
      headers: IncomingHttpHeaders;
      limits?: Limits;
      highWaterMark?: number;
      fileHwm?: number;
      defCharset?: string;
      defParamCharset?: string;
      preservePath?: boolean;
    }
    interface FileInfo {
      filename: string | undefined;
      encoding: string;
      mimeType: string;
    }
    interface FieldInfo {
      nameTruncated: boolean;
      valueTruncated: boolean;
      encoding: string;
      mimeType: string;
    }
    interface FileStream extends Readable {
      truncated: boolean;
    }
    interface Busboy extends Writable {
      on(event: 'file', listener: (name: string | undefined, stream: FileStream, info: FileInfo) => void): this;
      on(event: 'field', listener: (name: string | undefined, value: string, info: FieldInfo) => void): this;
      on(event: 'partsLimit' | 'filesLimit' | 'fieldsLimit' | 'close' | 'finish', listener: () => void): this;
      on(event: 'error', listener: (error: Error) => void): this;
    }
  }

  function busboy(config: busboy.Config): busboy.Busboy;
  export = busboy;
}
