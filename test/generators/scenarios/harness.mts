// The runtime shared by the generator scenarios: each call of the scenario is tried as the generated client offers it
// (`generated`) and, where the generator has its one documented option, with that option (`option`); every attempt
// is recorded with what went wrong, and the record is printed as the last line for the matrix test to read. What the
// scenario needs from the test (server, keys, the recording, a completed task) comes in environment variables.
import { readFileSync } from 'node:fs';
import type { InternalAxiosRequestConfig } from 'axios';
import { signV2Request } from './scribe-client/sign-v2-request.ts';

export type Attempt = 'generated' | 'option';
export interface Outcome {
  call: string;
  attempt: Attempt;
  ok: boolean;
  detail: string;
}

const required = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
};

export const env = {
  baseUrl: required('SCRIBE_BASE_URL'),
  apiKey: required('SCRIBE_API_KEY'),
  publicKey: required('SCRIBE_PUBLIC_KEY'),
  secret: required('SCRIBE_SECRET'),
  wavFile: required('WAV_FILE'),
  /** A task the test completed itself, so the poll and result calls are tried even when the scenario's upload fails. */
  completedTask: required('COMPLETED_TASK_ID'),
  /** That task's signed v2 result links by format (`text`, `json`, `pdf`), as `GET /v2/transcriptions/{id}` gave them. */
  v2ResultLinks: JSON.parse(required('V2_RESULT_LINKS')) as Record<string, string>,
};

/** The recording as a Blob, the file value every multipart call gets. */
export const recording = (): Blob => new Blob([readFileSync(env.wavFile)], { type: 'audio/wav' });
export const EXPECTED_TEXT = 'go forward ten meters';
export const MISSING_ID = '00000000-0000-4000-8000-000000000000';
export const LINK = 'https://example.org/talk.mp3';

/** What the scenario learnt on the way (the uploaded task), shared by the calls after it. */
export const state: { taskId?: string } = {};
/** The task the poll and result calls read: the scenario's own upload, else the one the test completed. */
export const taskId = (): string => state.taskId ?? env.completedTask;

const outcomes: Outcome[] = [];

export function check(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(message);
}

/** Shortens what a value printed as, for a failure's one line. */
export const shown = (value: unknown): string => {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return (text ?? String(value)).replace(/\s+/g, ' ').slice(0, 160);
};

export async function attempt(call: string, kind: Attempt, run: () => Promise<void>): Promise<void> {
  try {
    await run();
    outcomes.push({ call, attempt: kind, ok: true, detail: '' });
  } catch (error) {
    const detail =
      error instanceof Error ? `${error.name === 'Error' ? '' : `${error.name}: `}${error.message}` : shown(error);
    outcomes.push({ call, attempt: kind, ok: false, detail: detail.replace(/\s+/g, ' ').slice(0, 240) });
  }
}

/** Prints the outcomes of the attempts since the last report (one `MATRIX` line per scenario file). */
export function report(): void {
  console.log(`MATRIX ${JSON.stringify(outcomes)}`);
  outcomes.length = 0;
}

/** The `data:` payloads of a server-sent event stream, up to `[DONE]` (which must end it). */
export function sseData(text: string): unknown[] {
  const events = text
    .split(/\r?\n\r?\n/)
    .map((event) => event.trim())
    .filter(Boolean)
    .map((event) => event.replace(/^data: ?/, ''));
  check(events.at(-1) === '[DONE]', `the stream does not end with [DONE]: ${shown(text.slice(-80))}`);
  return events.slice(0, -1).map((event) => JSON.parse(event) as unknown);
}

/** Reads a streamed body to its end as text (for the clients that hand out the raw stream). */
export async function streamText(stream: ReadableStream<Uint8Array> | null | undefined): Promise<string> {
  check(stream, 'no body stream');
  return new Response(stream).text();
}

export const SRT = /^1\r?\n\d\d:\d\d:\d\d,\d{3} --> \d\d:\d\d:\d\d,\d{3}\r?\n/;
export const VTT = /^WEBVTT/;

/**
 * Whether a generated type admits text: a union with `string` does (the caller can narrow it), while `any`, `unknown`
 * and an object type alone (a JSON type given to a text answer) do not.
 */
export type AdmitsText<T> = 0 extends 1 & T ? false : unknown extends T ? false : string extends T ? true : false;
/** An extra argument that only code whose value is typed as text can leave out: otherwise the call does not compile. */
type TextTyped<T> = AdmitsText<T> extends true ? [] : [typed: 'the generated type of this value does not admit text'];

/** The text of a value the generated client typed as text (an error, at compile time or run time, otherwise). */
export function textOf<T>(value: T, ...typed: TextTyped<T>): string {
  check(typed.length === 0 && typeof value === 'string', `not text: ${shown(value)}`);
  return value;
}
export function checkSrt<T>(value: T, ...typed: TextTyped<T>): void {
  check(SRT.test(textOf(value, ...typed)), `not SRT text: ${shown(value)}`);
}
export function checkVtt<T>(value: T, ...typed: TextTyped<T>): void {
  check(VTT.test(textOf(value, ...typed)), `not WebVTT text: ${shown(value)}`);
}
export function checkText<T>(value: T, ...typed: TextTyped<T>): void {
  const text = textOf(value, ...typed).trim();
  check(text.length > 0 && !text.startsWith('{'), `not plain text: ${shown(value)}`);
}

/** What a call of `downloadV2TranscriptionResult` needs from a result link: its path parameters and its query. */
export function v2Link<F extends 'text' | 'json' | 'pdf'>(format: F) {
  const link = new URL(env.v2ResultLinks[format] ?? '');
  const [, , , id] = link.pathname.split('/'); // /v2/results/{id}/{format}
  check(id, `no id in the link ${link.href}`);
  return {
    id,
    format,
    expires: Number(link.searchParams.get('expires')),
    signature: link.searchParams.get('signature') ?? '',
  };
}

/** Bytes of the generated client's answer: a Blob, an ArrayBuffer or a Node Buffer are binary; text is not. */
async function bytesOf(value: unknown): Promise<Uint8Array> {
  if (value instanceof Blob) return new Uint8Array(await value.arrayBuffer());
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  if (value instanceof Uint8Array) return value;
  throw new Error(`not binary: ${typeof value} ${shown(value)}`);
}

/** Whether a generated type admits bytes (a union with Blob or ArrayBuffer does); `any` and `unknown` do not. */
export type AdmitsBinary<T> = 0 extends 1 & T
  ? false
  : unknown extends T
    ? false
    : Blob extends T
      ? true
      : ArrayBuffer extends T
        ? true
        : false;
type BinaryTyped<T> =
  AdmitsBinary<T> extends true ? [] : [typed: 'the generated type of this value does not admit binary data'];

/**
 * A PDF's bytes as the generated client handed them out, typed as bytes (else the call does not compile): they
 * start `%PDF-` and end with `%%EOF`.
 */
export async function checkPdf<T>(value: T, ...typed: BinaryTyped<T>): Promise<void> {
  check(typed.length === 0, 'typed as something other than bytes');
  const bytes = await bytesOf(value);
  const text = new TextDecoder('latin1').decode(bytes);
  check(text.startsWith('%PDF-') && text.trimEnd().endsWith('%%EOF'), `not a PDF: ${shown(text.slice(0, 40))}`);
}

/**
 * True only for a union of string literals: `any`, `unknown` and plain `string` give false. Used as
 * `const literal: IsLiteral<typeof value> = true`, so a type that does not narrow fails to compile.
 */
export type IsLiteral<T> = 0 extends 1 & T ? false : unknown extends T ? false : string extends T ? false : true;

/**
 * An axios request interceptor (the request hook of the axios-based clients) that signs a v2/v1 call with
 * scribe-client's signV2Request in place of the Bearer key. Version 1 covers no body, so a Request with the method and
 * URL is all it needs (axios serialises the body after the interceptors).
 */
export async function signAxiosRequest(config: InternalAxiosRequestConfig): Promise<InternalAxiosRequestConfig> {
  const url = new URL(config.url ?? '', config.baseURL);
  const signed = await signV2Request(new Request(url, { method: config.method?.toUpperCase() }), {
    publicKey: env.publicKey,
    secret: env.secret,
  });
  config.headers.delete('Authorization');
  for (const [name, value] of signed.headers) config.headers.set(name, value);
  return config;
}
