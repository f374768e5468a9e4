// `scribe-client transcribe FILE|URL`: uploads a file (sync create, multipart) or hands the server a link (async
// create), shows the task's progress, then prints the result or writes it to --out.
import { readFile, writeFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { parseArgs } from 'node:util';
import type { Client } from '../../../generated/client/client/index.ts';
import {
  createAsyncTranscription,
  createSyncTranscription,
  getTranscriptionResult,
} from '../../../generated/client/sdk.gen.ts';
import { ScribeApiError } from '../api-error.ts';
import { waitForTranscription } from '../wait-for-transcription.ts';
import { choiceLine, chooseLanguage } from './choose-language.ts';
import { CliError } from './cli-error.ts';
import { progressBar } from './progress-bar.ts';

export const transcribeUsage =
  'scribe-client transcribe FILE|URL [--format text|json|srt|vtt] [--language CODE] [--diarization] [--out PATH]';

const FORMATS = { json: 'json', text: 'txt', srt: 'srt', vtt: 'vtt' } as const;

/** What the task is made from: a link, or the file's bytes (read first, so a bad path is the one line it reports). */
type Source = { url: string } | { file: File };

async function sourceOf(source: string): Promise<Source> {
  if (/^https?:\/\//i.test(source)) return { url: source };
  try {
    return { file: new File([new Uint8Array(await readFile(source))], basename(source)) };
  } catch (error) {
    throw new CliError(`cannot read ${source}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}

async function createTask(client: Client, source: Source, language?: string, diarization?: boolean) {
  if ('url' in source) {
    const { data, error, response } = await createAsyncTranscription({
      client,
      body: { url: source.url, language, diarization },
    });
    if (!data) throw ScribeApiError.from(response, error);
    return data.transcription_id;
  }
  const { data, error, response } = await createSyncTranscription({
    client,
    body: { file: source.file, language, diarization },
  });
  if (!data) throw ScribeApiError.from(response, error);
  return data.data.id;
}

async function resultOf(client: Client, id: string, format: keyof typeof FORMATS): Promise<string> {
  if (format === 'json') {
    const { data, error, response } = await getTranscriptionResult({ client, path: { id }, query: { format: 'json' } });
    if (!data) throw ScribeApiError.from(response, error);
    return `${JSON.stringify(data, null, 2)}\n`;
  }
  // The generated type describes the JSON answer only; the subtitle and text formats arrive as text.
  const { data, error, response } = await getTranscriptionResult({
    client,
    path: { id },
    query: { format: FORMATS[format] },
    parseAs: 'text',
  });
  const text: unknown = data;
  if (typeof text !== 'string') throw ScribeApiError.from(response, error);
  return text.endsWith('\n') ? text : `${text}\n`;
}

export async function transcribeCommand(client: Client, argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      format: { type: 'string', default: 'text' },
      language: { type: 'string' },
      diarization: { type: 'boolean' },
      out: { type: 'string' },
    },
  });
  const [source] = positionals;
  if (!source || positionals.length > 1) throw new CliError(`Usage: ${transcribeUsage}`, 2);
  const format = values.format as keyof typeof FORMATS;
  if (!(format in FORMATS)) throw new CliError(`--format must be one of ${Object.keys(FORMATS).join(', ')}`, 2);

  const input = await sourceOf(source);
  const choice = await chooseLanguage(client, values.language);
  process.stderr.write(choiceLine(choice));
  const id = await createTask(client, input, choice.language, values.diarization);
  const bar = progressBar(process.stderr);
  let task;
  try {
    task = await waitForTranscription(client, id, {
      onProgress: (current) => bar.update(current.status, current.progress),
    });
  } finally {
    bar.done();
  }
  if (task.status !== 'completed') {
    const reason = task.error ? `${task.error.code}: ${task.error.message}` : task.status;
    throw new CliError(`transcription ${task.id} ${task.status}: ${reason}`);
  }
  const result = await resultOf(client, task.id, format);
  if (values.out) {
    try {
      await writeFile(values.out, result);
    } catch (error) {
      throw new CliError(
        `cannot write ${values.out}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      );
    }
    process.stderr.write(`${values.out}: ${format} of transcription ${task.id}\n`);
  } else process.stdout.write(result);
  return 0;
}
