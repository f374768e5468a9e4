// Accepting a transcription task (v3 sync and async, later v2): the per-account concurrency limit, the engine's
// languages, probing an uploaded medium (format, duration, limits) and reserving its price — all before the task
// row exists, so a rejected request leaves nothing behind and charges nothing. Sync requests get these problems as
// 400/402 answers; async requests get a task that ends `failed` with the same error (the contract), except 402
// when the account has nothing available at all. Link sources are probed and reserved by the job after download.
// The probe's duration is the container's word: it refuses what states too much and sizes the first reservation,
// and the job then limits and bills by the decoded length (decoded-length.ts), so a sync request with a forged
// header is accepted here and its task fails with duration_exceeded once the decode has run past the limit.
import { randomUUID } from 'node:crypto';
import type { OutputOptions, Priority } from '../../../generated/client/types.gen.ts';
import { availableMinor, type AccountRow } from '../accounts/store.ts';
import type { Ledger } from '../billing/ledger.ts';
import { quote } from '../billing/prices.ts';
import type { PriceTable } from '../config.ts';
import { withAccountLimit } from '../db/account-limit.ts';
import type { Database } from '../db/database.ts';
import { now } from '../db/rows.ts';
import { ApiError, errors } from '../http/api-error.ts';
import { parseClientUrl } from '../http/client-url.ts';
import type { AddressGuard } from '../media/address-guard.ts';
import { checkMediaLink } from '../media/link-check.ts';
import type { UploadedFile } from '../media/multipart.ts';
import type { TranscriptionEngine } from './engine/engine.ts';
import { UNFINISHED, type JobRow } from './jobs.ts';
import { taskErrorOf, taskFailures } from './task-errors.ts';
import type { TaskFiles } from './task-files.ts';

export interface TaskOptions {
  language: string;
  /** The request left `language` out and the contract's default was applied (an error then says so). */
  languageDefaulted?: boolean;
  priority: Priority;
  diarization: boolean;
  output: OutputOptions;
  terms?: string[];
  /** The operation's own limits, where they are not its mode's (the OpenAI endpoint: sync, with the async duration). */
  limits?: { maxBytes: number; maxSeconds: number };
  /** v2 `prompt`: an analysis of the finished transcript. */
  aiPrompt?: string;
  apiVersion: 'v3' | 'v2';
  mode: 'sync' | 'async';
}

export interface IntakeLimits {
  sync: { maxBytes: number; maxSeconds: number };
  async: { maxBytes: number; maxSeconds: number };
  maxConcurrentJobs: number;
}

const RETRY_AFTER_SECONDS = 5;
/** The refusal of a task over the account's limit: a 429 for sync and async alike, never a failed task. */
const TOO_MANY_JOBS = 'too_many_concurrent_jobs';

export function priceOf(prices: PriceTable, priority: Priority, durationSeconds: number) {
  const priced = quote({ type: 'transcription', duration_seconds: Math.max(durationSeconds, 0.01), priority }, prices);
  return { amountMinor: priced.amountMinor, minutes: priced.minutesBilled ?? 0 };
}

function fileNameOf(url: string): string {
  const last = new URL(url).pathname.split('/').pop() ?? '';
  try {
    return decodeURIComponent(last) || 'media';
  } catch {
    return last || 'media';
  }
}

export interface IntakeDeps {
  db: Database;
  ledger: Ledger;
  engine: TranscriptionEngine;
  files: TaskFiles;
  prices: PriceTable;
  limits: IntakeLimits;
  /** Checks a link's address when its task is created (the download checks it again). */
  guard: AddressGuard;
  /** Wakes the job runner (a new task is waiting). */
  wake: () => void;
  /** A task that is final already when created (failed at intake) hands over its event like the pipeline does. */
  onFinal: (task: JobRow) => Promise<void>;
}

export function createIntake(deps: IntakeDeps) {
  const { db, ledger, engine, files, prices, limits } = deps;

  /**
   * The account's unfinished sync and async tasks against the limit. Run twice: first before anything is probed or
   * reserved (a full account is refused at once), then by `insert` under the limit's lock, on `trx`.
   */
  async function checkConcurrency(accountId: string, trx: Database = db): Promise<void> {
    const [row] = await trx('transcriptions')
      .where({ account_id: accountId })
      .whereIn('mode', ['sync', 'async'])
      .whereIn('status', [...UNFINISHED])
      .count({ n: '*' });
    if (Number(row?.n ?? 0) >= limits.maxConcurrentJobs) {
      throw new ApiError(
        429,
        TOO_MANY_JOBS,
        `At most ${limits.maxConcurrentJobs} transcription tasks of an account can be unfinished at once; wait for one to end.`,
        null,
        { 'Retry-After': String(RETRY_AFTER_SECONDS) },
      );
    }
  }

  /** An engine that cannot run here (not installed) is the service's problem: 503 on every route, no task. */
  function refuseWhenNoEngine(): void {
    if (engine.unavailable) throw taskFailures.engineMissing(engine.unavailable);
  }

  async function refuseWhenNothingAvailable(account: AccountRow): Promise<void> {
    const row = (await db<AccountRow>('accounts').where({ id: account.id }).first())!;
    if (availableMinor(row) <= 0) throw errors.insufficientBalance('The available balance is zero or below.');
  }

  function baseRow(account: AccountRow, options: TaskOptions, source: 'upload' | 'url', filename: string): JobRow {
    return {
      id: randomUUID(),
      account_id: account.id,
      status: 'created',
      mode: options.mode,
      api_version: options.apiVersion,
      priority: options.priority,
      source_type: source,
      filename,
      file_size: null,
      language: options.language,
      diarization: options.diarization,
      duration_seconds: null,
      minutes_billed: null,
      cost_minor: null,
      progress: 0,
      output: JSON.stringify(options.output),
      result: null,
      error: null,
      created_at: now(),
      started_at: null,
      completed_at: null,
      source_url: null,
      media_path: null,
      reservation_id: null,
      terms: options.terms ? JSON.stringify(options.terms) : null,
      lease_owner: null,
      lease_expires_at: null,
      attempts: 0,
      event_pending: false,
      ai_prompt: options.aiPrompt ?? null,
      ai_analysis: null,
    };
  }

  /**
   * Writes the task row. A task that is going to run counts toward the account's unfinished tasks, so it is counted
   * again here, in one transaction with the insert under the limit's lock: the first check ran before the probe
   * (seconds ago), and other requests, on this node or another, may have taken the last places meanwhile. Refused
   * here, the task's reservation is given back and the caller gets the same 429 as from the first check.
   */
  async function insert(row: JobRow): Promise<JobRow> {
    if (row.status === 'failed') {
      await db('transcriptions').insert(row);
      return row;
    }
    try {
      await withAccountLimit(db, 'unfinished_transcriptions', row.account_id, async (trx) => {
        await checkConcurrency(row.account_id, trx);
        await trx('transcriptions').insert(row);
      });
    } catch (error) {
      if (row.reservation_id) await ledger.settle(row.reservation_id, 0);
      throw error;
    }
    deps.wake();
    return row;
  }

  /** An async task that failed on intake: recorded as `failed` (nothing reserved, nothing charged). */
  async function insertFailed(row: JobRow, error: unknown): Promise<JobRow> {
    const failed = await insert({
      ...row,
      status: 'failed',
      error: JSON.stringify(taskErrorOf(error)),
      completed_at: now(),
      event_pending: true,
    });
    await deps.onFinal(failed);
    return failed;
  }

  return {
    /** A task from an uploaded file (sync, or async multipart). The upload is moved into the task's folder. */
    async fromUpload(account: AccountRow, upload: UploadedFile, options: TaskOptions): Promise<JobRow> {
      refuseWhenNoEngine();
      const sync = options.mode === 'sync';
      const limit = options.limits ?? (sync ? limits.sync : limits.async);
      await checkConcurrency(account.id);
      if (!sync) await refuseWhenNothingAvailable(account);
      const row = { ...baseRow(account, options, 'upload', upload.filename), file_size: upload.size };
      try {
        if (!engine.supports(options.language))
          throw taskFailures.unsupportedLanguage(options.language, engine.languages, options.languageDefaulted);
        if (upload.size > limit.maxBytes) throw taskFailures.fileTooLarge(limit.maxBytes);
        // One ffmpeg run probes now and goes on decoding for the job (files.decode takes it).
        const mediaPath = await files.adoptUpload(row.id, upload.path);
        const probed = await files.probeAndDecode(row.id, mediaPath, { maxSeconds: limit.maxSeconds });
        if (probed.durationSeconds > limit.maxSeconds)
          throw taskFailures.durationExceeded(limit.maxSeconds, probed.durationSeconds);
        // The job may run in another process: the original is stored where it reaches it before the task is queued
        // (while this process's decode goes on). A process killed from here to the insert leaves stored media
        // without a task, which the media sweep removes.
        const mediaName = await files.share(row.id, mediaPath);
        const price = priceOf(prices, options.priority, probed.durationSeconds);
        const reservation = await ledger.reserve(account.id, price.amountMinor, `transcription:${row.id}`);
        return await insert({
          ...row,
          status: 'ready',
          duration_seconds: probed.durationSeconds,
          media_path: mediaName,
          reservation_id: reservation.id,
        });
      } catch (error) {
        // What this request stored goes with it (what a failed removal leaves, the media sweep takes).
        await files.remove(row.id).catch(() => undefined);
        if (sync || !(error instanceof ApiError) || error.status >= 500 || error.code === TOO_MANY_JOBS) throw error;
        return insertFailed(row, error);
      }
    },

    /** A task from a link: created now, downloaded, probed and reserved by the job. */
    /** `param` names the link's field in the client's request (`url`, v2 `source_url`). */
    async fromUrl(account: AccountRow, url: string, options: TaskOptions, param = 'url'): Promise<JobRow> {
      await checkMediaLink(deps.guard, parseClientUrl(url, param), param);
      refuseWhenNoEngine();
      await checkConcurrency(account.id);
      await refuseWhenNothingAvailable(account);
      const name = fileNameOf(url);
      const row = { ...baseRow(account, options, 'url', name.slice(0, 500)), source_url: url };
      if (!engine.supports(options.language)) {
        return insertFailed(
          row,
          taskFailures.unsupportedLanguage(options.language, engine.languages, options.languageDefaulted),
        );
      }
      return insert(row);
    },
  };
}

export type Intake = ReturnType<typeof createIntake>;
