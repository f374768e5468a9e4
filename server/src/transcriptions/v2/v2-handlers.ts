// v2 transcriptions (HMAC-signed requests): create from an upload or a link, read with fresh signed result links, and
// the result files those links point to. A v2 transcription is an async transcription task (same intake, queue,
// billing and webhooks as v3) that is always diarized, so `recognized_speakers` is filled.
import type { TranscriptionResult, V2TranscriptionCreateRequest } from '../../../../generated/client/types.gen.ts';
import { parseJson, toIso } from '../../db/rows.ts';
import { ApiError, errors } from '../../http/api-error.ts';
import { parseClientUrl } from '../../http/client-url.ts';
import { accountOf, type HandlerGroup } from '../../http/operation.ts';
import type { Intake, TaskOptions } from '../intake.ts';
import type { JobQueue } from '../jobs.ts';
import { withOutputDefaults } from '../output-options.ts';
import { visibleResult, type TranscriptionStore } from '../store.ts';
import { toText } from '../subtitles.ts';
import type { ResultFormat, ResultLinks } from './result-links.ts';
import { renderTranscriptPdf } from './transcript-pdf.ts';
import { toV2Transcription } from './v2-view.ts';

/** `terms` is one comma-separated string on the wire; blanks around commas and empty entries are ignored. */
export function parseTerms(terms: string | undefined): string[] | undefined {
  const list = (terms ?? '')
    .split(',')
    .map((term) => term.trim())
    .filter(Boolean);
  return list.length > 0 ? list : undefined;
}

function optionsOf(fields: V2TranscriptionCreateRequest): TaskOptions {
  return {
    language: fields.language ?? 'ru',
    languageDefaulted: fields.language === undefined,
    priority: fields.priority ?? 'queue',
    diarization: true,
    output: withOutputDefaults(undefined),
    terms: parseTerms(fields.terms),
    ...(fields.prompt ? { aiPrompt: fields.prompt } : {}),
    apiVersion: 'v2',
    mode: 'async',
  };
}

/** Where links point: SCRIBE_PUBLIC_URL, else the host the client called (plain http: no proxy is trusted). */
export function originOf(publicUrl: string | undefined, host: string | string[] | undefined, fallback: string): string {
  if (publicUrl) return publicUrl.replace(/\/+$/, '');
  return typeof host === 'string' && /^[A-Za-z0-9.\-[\]:]+$/.test(host) ? `http://${host}` : fallback;
}

export interface V2Deps {
  intake: Intake;
  store: TranscriptionStore;
  jobs: JobQueue;
  links: ResultLinks;
  publicUrl: string | undefined;
  /** Origin used when the request has no usable Host header. */
  fallbackOrigin: string;
}

export function v2TranscriptionHandlers(deps: V2Deps): HandlerGroup {
  const { intake, store, jobs, links } = deps;

  /** A result file behind a signed link: the link checked for this format, then the file in its media type. */
  async function download(id: string, format: ResultFormat, link: { expires: number; signature: string }) {
    const check = links.check(id, format, link.expires, link.signature);
    if (check === 'invalid') throw new ApiError(403, 'invalid_link', 'Invalid link signature.');
    if (check === 'expired') throw new ApiError(403, 'invalid_link', 'This link has expired.');
    const task = await jobs.get(id);
    const result = task?.status === 'completed' ? parseJson<TranscriptionResult>(task.result) : null;
    if (!task || !result) throw errors.notFound('id', 'completed transcription');
    const attachment = (ext: string) => `attachment; filename="${id}.${ext}"`;
    switch (format) {
      case 'text':
        return {
          status: 200 as const,
          body: toText(result) as never,
          headers: { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Disposition': attachment('txt') },
        };
      case 'pdf': {
        const pdf = await renderTranscriptPdf(result, {
          id,
          filename: task.filename,
          language: task.language,
          createdAt: toIso(task.created_at),
        });
        return {
          status: 200 as const,
          body: pdf as never,
          headers: { 'Content-Type': 'application/pdf', 'Content-Disposition': attachment('pdf') },
        };
      }
      case 'json':
        return {
          status: 200 as const,
          body: visibleResult(result, parseJson(task.output)) as never,
          headers: { 'Content-Type': 'application/json; charset=utf-8', 'Content-Disposition': attachment('json') },
        };
    }
  }
  return {
    createV2Transcription: async (request) => {
      const account = accountOf(request);
      const fields = request.body;
      // The form schema's oneOf already refuses none or both; this keeps the handler honest on its own.
      if (request.upload && fields.source_url)
        throw errors.invalidParameter('source_url', 'Give either file or source_url, not both.');
      if (fields.source_url !== undefined) parseClientUrl(fields.source_url, 'source_url');
      const row = request.upload
        ? await intake.fromUpload(account, request.upload, optionsOf(fields))
        : fields.source_url
          ? await intake.fromUrl(account, fields.source_url, optionsOf(fields), 'source_url')
          : undefined;
      if (!row) throw errors.invalidParameter('file', 'Either file or source_url is required.');
      return { status: 201, body: { transcription_id: row.id } };
    },

    getV2Transcription: async (request) => {
      const row = await store.find(accountOf(request).id, request.path.id);
      if (!row) throw errors.notFound('id', 'transcription');
      const origin = originOf(deps.publicUrl, request.headers.host, deps.fallbackOrigin);
      const results = row.status === 'completed' ? links.issue(origin, row.id) : null;
      return { status: 200, body: { data: toV2Transcription(row, results) } };
    },

    downloadV2TranscriptionResult: async (request) => download(request.path.id, request.path.format, request.query),
    // The same files as operations of one media type each (for client generators); the link's signature names the
    // format, so the one a path stands for is checked as if it had been in the path.
    downloadV2TranscriptionText: async (request) => download(request.path.id, 'text', request.query),
    downloadV2TranscriptionJson: async (request) => download(request.path.id, 'json', request.query),
    downloadV2TranscriptionPdf: async (request) => download(request.path.id, 'pdf', request.query),
  };
}
