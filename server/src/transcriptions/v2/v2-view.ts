// A task row as the v2 `V2Transcription`: the v2 status mapped from the task state (contract: created, downloading
// and ready are `pending`), every field present with nulls until known, result links and speakers once completed.
import type {
  AiAnalysis,
  ErrorObject,
  TranscriptionResult,
  V2Results,
  V2Transcription,
  V2TranscriptionStatus,
} from '../../../../generated/client/types.gen.ts';
import { fromMinor, parseJson, toIso, toIsoOrNull } from '../../db/rows.ts';
import { minutesBilled } from '../../billing/prices.ts';
import type { TranscriptionRow } from '../store.ts';

const STATUS: Record<TranscriptionRow['status'], V2TranscriptionStatus> = {
  created: 'pending',
  downloading: 'pending',
  ready: 'pending',
  processing: 'processing',
  completed: 'completed',
  failed: 'failed',
  cancelled: 'cancelled',
};

function errorMessageOf(row: TranscriptionRow): string | null {
  if (row.status === 'cancelled') return 'The transcription was cancelled.';
  if (row.status !== 'failed') return null;
  return parseJson<ErrorObject>(row.error)?.message ?? 'The transcription failed.';
}

/** `links` are issued by the caller for a completed task (they depend on the request's origin and the time). */
export function toV2Transcription(row: TranscriptionRow, links: V2Results | null): V2Transcription {
  const completed = row.status === 'completed';
  const seconds = row.duration_seconds === null ? null : Number(row.duration_seconds);
  const result = completed ? parseJson<TranscriptionResult>(row.result) : null;
  const analysis = completed ? parseJson<AiAnalysis>(row.ai_analysis) : null;
  const billed = completed && row.cost_minor !== null;
  return {
    id: row.id,
    status: STATUS[row.status],
    progress: completed ? 100 : Math.round(Number(row.progress)),
    duration_seconds: seconds,
    duration_minutes: seconds === null ? null : Math.round((seconds / 60) * 100) / 100,
    minutes_billed:
      row.minutes_billed !== null ? Number(row.minutes_billed) : seconds === null ? null : minutesBilled(seconds),
    ...(billed ? { cost: fromMinor(row.cost_minor) } : {}),
    priority_type: row.priority,
    filename: row.filename,
    file_size: row.file_size === null ? null : Number(row.file_size),
    source_type: row.source_type,
    language: row.language,
    normalization_enabled: true,
    results: completed ? links : null,
    recognized_speakers: result?.speakers ?? [],
    ai_analysis: analysis,
    error_message: errorMessageOf(row),
    created_at: toIso(row.created_at),
    started_at: toIsoOrNull(row.started_at),
    completed_at: toIsoOrNull(row.completed_at),
    billed_at: billed ? toIsoOrNull(row.completed_at) : null,
  };
}
