// Transcribes a file (picked or recorded): a sync task when the file is within the sync limits of the contract,
// otherwise (or when the server says it is too big or too long after all) an async upload; then polls the task,
// showing status and progress, and shows the transcript with word times and links to its SRT and WebVTT subtitles.
import {
  createSyncTranscription,
  formDataBodySerializer,
  getTranscriptionResult,
  ScribeApiError,
  waitForTranscription,
  type AsyncTranscriptionMultipartRequest,
  type Client,
  type CreateAsyncTranscriptionErrors,
  type CreateAsyncTranscriptionResponses,
  type Transcription,
} from '../../client/src/index.ts';

/** Filled in by the docs build from the contract's `x-limits` of createSyncTranscription. */
declare const SYNC_MAX_BYTES: number;
declare const SYNC_MAX_SECONDS: number;

export interface TranscribeView {
  onTask(task: Transcription): void;
  onMode(mode: 'sync' | 'async'): void;
}

const OUTPUT = JSON.stringify({ format: 'json', word_timestamps: true });

export interface TranscribeOptions {
  language?: string;
  /** The length of a recording made here (the browser cannot read it back from a live WebM). */
  knownSeconds?: number;
}

/** The media's duration as the browser reads it, or undefined when it cannot tell (then the server decides). */
export function probeDuration(file: Blob): Promise<number | undefined> {
  return new Promise((resolve) => {
    const url = URL.createObjectURL(file);
    const media = new Audio();
    const done = (seconds: number | undefined) => {
      clearTimeout(timer);
      URL.revokeObjectURL(url);
      resolve(seconds !== undefined && Number.isFinite(seconds) ? seconds : undefined);
    };
    const timer = setTimeout(() => done(undefined), 3000);
    media.preload = 'metadata';
    media.addEventListener('loadedmetadata', () => done(media.duration));
    media.addEventListener('error', () => done(undefined));
    media.src = url;
  });
}

async function createSync(client: Client, file: File, language?: string): Promise<string> {
  const { data, error, response } = await createSyncTranscription({ client, body: { file, language, output: OUTPUT } });
  if (!data) throw ScribeApiError.from(response, error);
  return data.data.id;
}

/** The generated SDK sends async create as JSON (a link); an upload is the same operation as multipart. */
async function createAsync(client: Client, file: File, language?: string): Promise<string> {
  const body: AsyncTranscriptionMultipartRequest = { file, language, output: OUTPUT };
  const { data, error, response } = await client.post<
    CreateAsyncTranscriptionResponses,
    CreateAsyncTranscriptionErrors
  >({
    ...formDataBodySerializer,
    security: [{ scheme: 'bearer', type: 'http' }],
    url: '/v3/transcriptions/async/create',
    body,
    headers: { 'Content-Type': null },
  });
  if (!data) throw ScribeApiError.from(response, error);
  return data.transcription_id;
}

const OVER_SYNC_LIMIT = new Set(['file_too_large', 'duration_exceeded']);

export async function transcribeFile(
  client: Client,
  file: File,
  view: TranscribeView,
  { language, knownSeconds }: TranscribeOptions,
): Promise<Transcription> {
  const seconds = knownSeconds ?? (await probeDuration(file));
  const small = file.size <= SYNC_MAX_BYTES && seconds !== undefined && seconds <= SYNC_MAX_SECONDS;
  let id: string;
  if (small) {
    view.onMode('sync');
    try {
      id = await createSync(client, file, language);
    } catch (error) {
      if (!(error instanceof ScribeApiError && error.code && OVER_SYNC_LIMIT.has(error.code))) throw error;
      view.onMode('async');
      id = await createAsync(client, file, language);
    }
  } else {
    view.onMode('async');
    id = await createAsync(client, file, language);
  }
  return waitForTranscription(client, id, { onProgress: view.onTask, intervalMs: 400 });
}

/** The subtitles of a completed task as a file the visitor can save. */
export async function subtitleFile(client: Client, id: string, format: 'srt' | 'vtt'): Promise<Blob> {
  // The generated type describes the JSON answer only; subtitles arrive as text.
  const { data, error, response } = await getTranscriptionResult({
    client,
    path: { id },
    query: { format },
    parseAs: 'text',
  });
  const text: unknown = data;
  if (typeof text !== 'string') throw ScribeApiError.from(response, error);
  return new Blob([text], { type: format === 'srt' ? 'application/x-subrip' : 'text/vtt' });
}
