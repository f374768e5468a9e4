// transcriptions table: maps task rows to the v3 wire type `Transcription` (JSON columns and timestamps normalised).
import type {
  ErrorObject,
  OutputOptions,
  Transcription,
  TranscriptionResult,
} from '../../../generated/client/types.gen.ts';
import type { Database } from '../db/database.ts';
import { hotRead } from '../db/hot-reads.ts';
import { fromMinor, parseJson, toBool, toIso, toIsoOrNull } from '../db/rows.ts';
import { paginate, type Page } from '../http/pagination.ts';

export interface TranscriptionRow {
  id: string;
  account_id: string;
  status: Transcription['status'];
  mode: 'sync' | 'async' | 'stream';
  api_version: 'v3' | 'v2';
  priority: Transcription['priority'];
  source_type: Transcription['source_type'];
  filename: string;
  file_size: number | string | null;
  language: string;
  diarization: boolean | number;
  duration_seconds: number | null;
  minutes_billed: number | null;
  cost_minor: number | string | null;
  progress: number;
  output: string | null;
  result: string | null;
  error: string | null;
  created_at: string | Date;
  started_at: string | Date | null;
  completed_at: string | Date | null;
  /** v2 only: the analysis asked for at creation, and its answer (JSON `AiAnalysis`) once produced. */
  ai_prompt: string | null;
  ai_analysis: string | null;
}

/**
 * The stored result always keeps every word with its timing and confidence (subtitles are built from them); the
 * wire result shows `words` only with `output.word_timestamps` and `confidence` only with `output.confidence`.
 */
export function visibleResult(result: TranscriptionResult, output: OutputOptions | null): TranscriptionResult {
  const { words, ...rest } = result;
  if (!words || output?.word_timestamps === false) return rest;
  if (output?.confidence) return { ...rest, words };
  return { ...rest, words: words.map(({ confidence: _confidence, ...word }) => word) };
}

export function toTranscription(row: TranscriptionRow): Transcription {
  const output = parseJson<OutputOptions>(row.output);
  const result = parseJson<TranscriptionResult>(row.result);
  const error = parseJson<ErrorObject>(row.error);
  const startedAt = toIsoOrNull(row.started_at);
  const completedAt = toIsoOrNull(row.completed_at);
  const completed = row.status === 'completed';
  return {
    id: row.id,
    status: row.status,
    progress: Number(row.progress),
    source_type: row.source_type,
    filename: row.filename,
    file_size: row.file_size === null ? null : Number(row.file_size),
    language: row.language,
    priority: row.priority,
    mode: row.mode === 'async' ? 'async' : 'sync',
    diarization: toBool(row.diarization),
    created_at: toIso(row.created_at),
    ...(output ? { output } : {}),
    ...(startedAt ? { started_at: startedAt } : {}),
    ...(completedAt ? { completed_at: completedAt } : {}),
    ...(completed && row.duration_seconds !== null
      ? { duration_minutes: Math.round((Number(row.duration_seconds) / 60) * 100) / 100 }
      : {}),
    ...(completed && row.minutes_billed !== null ? { minutes_billed: Number(row.minutes_billed) } : {}),
    ...(completed && row.cost_minor !== null ? { cost: fromMinor(row.cost_minor) } : {}),
    ...(completed && result ? { result: visibleResult(result, output) } : {}),
    ...(row.status === 'failed' && error ? { error } : {}),
  };
}

export interface ListFilters {
  limit?: number;
  after?: string;
  status?: Transcription['status'];
  mode?: 'sync' | 'async';
  created_after?: string;
  created_before?: string;
}

export function createTranscriptionStore(db: Database) {
  /** Tasks visible through the v3 task endpoints (stream sessions are recorded for usage only). */
  const visible = (accountId: string) =>
    db<TranscriptionRow>('transcriptions').where({ account_id: accountId }).whereIn('mode', ['sync', 'async']);
  // The status poll is the most frequent read of the API: fixed SQL, the same rows as `visible` gives.
  const findVisible = hotRead<TranscriptionRow>(
    db,
    `SELECT * FROM transcriptions WHERE account_id = ? AND mode IN ('sync', 'async') AND id = ? LIMIT 1`,
  );
  return {
    async find(accountId: string, id: string): Promise<TranscriptionRow | undefined> {
      return findVisible(accountId, id);
    },
    async list(accountId: string, filters: ListFilters): Promise<Page<Transcription>> {
      const query = visible(accountId);
      if (filters.status) void query.andWhere({ status: filters.status });
      if (filters.mode) void query.andWhere({ mode: filters.mode });
      if (filters.created_after) void query.andWhere('created_at', '>=', new Date(filters.created_after).toISOString());
      if (filters.created_before)
        void query.andWhere('created_at', '<', new Date(filters.created_before).toISOString());
      return paginate<TranscriptionRow, Transcription>(query, filters, toIso, toTranscription);
    },
  };
}

export type TranscriptionStore = ReturnType<typeof createTranscriptionStore>;
