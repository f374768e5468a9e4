// One job, from where it was left to a final state: download (link sources) → probe, limits, reservation → decode
// to 16 kHz PCM, with the speech engine reading the PCM as it is written (recognise-while-decoding.ts; progress =
// share of the audio recognised) → the decoded length checked against the limit and the reservation grown to its
// price (decoded-length.ts: the container's duration is only the client's word) → diarization → capture of the
// decoded length and `completed`.
// Every state change is conditional on the state it leaves and on this worker still holding the lease, so a task
// cancelled meanwhile, or taken over after this worker lost its lease, is left alone; every final state is written
// only over an unfinished one, so a task ends exactly once. Capture settles the task's reservation, which the ledger
// does at most once, so a job that is resumed after a crash never charges twice.
import { readFile } from 'node:fs/promises';
import type { Logger } from 'pino';
import type { TranscriptionResult, Word } from '../../../generated/client/types.gen.ts';
import type { Ledger } from '../billing/ledger.ts';
import type { PriceTable, TranscriptionConfig } from '../config.ts';
import { now, parseJson } from '../db/rows.ts';
import { ApiError, errors } from '../http/api-error.ts';
import { loggableUrl } from '../http/client-url.ts';
import { faultSummary, infrastructureFaultOf } from '../http/infrastructure-errors.ts';
import type { AddressGuard } from '../media/address-guard.ts';
import { DownloadError, downloadToFile } from '../media/download.ts';
import { checkDecodedLength } from './decoded-length.ts';
import { diarize } from './diarization/diarize.ts';
import { recogniseWhileDecoding } from './recognise-while-decoding.ts';
import { EngineError, type EngineTranscript, type TranscriptionEngine } from './engine/engine.ts';
import { priceOf } from './intake.ts';
import { UNFINISHED, type JobQueue, type JobRow } from './jobs.ts';
import { taskErrorOf, taskFailures } from './task-errors.ts';
import type { TaskFiles } from './task-files.ts';

/** A job taken this many times without ending (it keeps killing its worker) fails instead of looping forever. */
export const MAX_ATTEMPTS = 3;
const PROGRESS_INTERVAL_MS = 500;

export interface PipelineDeps {
  jobs: JobQueue;
  ledger: Ledger;
  engine: TranscriptionEngine;
  files: TaskFiles;
  prices: PriceTable;
  config: Pick<TranscriptionConfig, 'asyncMaxBytes' | 'asyncMaxSeconds' | 'downloadTimeoutMs'>;
  guard: AddressGuard;
  logger: Logger;
  /** Called once a task has reached its final state: hands its event to the webhooks and clears `event_pending`. */
  onFinal: (task: JobRow) => Promise<void>;
  /**
   * Whether the data disk is below its free-space threshold now: a job that fails meanwhile (ffmpeg cannot write its
   * output, a download cannot be stored) is taken again later rather than failed for a reason of the server's.
   */
  diskLow?: () => Promise<boolean>;
}

/** What a run that did not end its task asks of the runner: `postpone` the task after a failure of the server's. */
export type RunOutcome = 'postpone' | undefined;

/** Thrown inside the pipeline when the task left the state the job expected (cancelled, or the lease was lost). */
class Superseded extends Error {}

export function createPipeline(deps: PipelineDeps) {
  const { jobs, ledger, engine, files, prices, config, logger } = deps;

  async function finish(job: JobRow, owner: string, changes: Partial<JobRow>): Promise<void> {
    // The final state and "its event is still to be sent" are one write; the flag is cleared once the event is in
    // the webhook queue, and a flag left by a crash in between is swept up (webhooks/service.ts), so no event is lost.
    const ended = await jobs.advance(job.id, owner, [...UNFINISHED], {
      ...changes,
      completed_at: now(),
      lease_owner: null,
      lease_expires_at: null,
      event_pending: true,
    });
    // A removal that fails (the database briefly gone) must not hold back the event; the media sweep takes the rest.
    await files
      .remove(job.id)
      .catch((err: unknown) => logger.warn({ err, taskId: job.id }, 'task media not removed; the sweep will'));
    if (ended) await deps.onFinal((await jobs.get(job.id))!);
  }

  async function fail(job: JobRow, owner: string, error: unknown): Promise<void> {
    const current = await jobs.get(job.id);
    if (current?.reservation_id) await ledger.settle(current.reservation_id, 0, 'Transcription failed');
    await finish(job, owner, { status: 'failed', error: JSON.stringify(taskErrorOf(error)) });
  }

  async function advanceOrStop(job: JobRow, owner: string, from: JobRow['status'][], changes: Partial<JobRow>) {
    if (!(await jobs.advance(job.id, owner, from, changes))) throw new Superseded();
    return { ...job, ...changes } as JobRow;
  }

  /** created/downloading → ready: fetch the link, probe it, check the async limits, reserve its price. */
  async function download(job: JobRow, owner: string, signal: AbortSignal): Promise<JobRow> {
    job = await advanceOrStop(job, owner, ['created', 'downloading'], { status: 'downloading', started_at: now() });
    await files.prepare(job.id);
    const target = files.originalPath(job.id);
    let size: number;
    try {
      ({ size } = await downloadToFile(job.source_url!, target, {
        guard: deps.guard,
        maxBytes: config.asyncMaxBytes,
        timeoutMs: config.downloadTimeoutMs,
        signal,
      }));
    } catch (error) {
      if (error instanceof DownloadError) {
        if (error.detail)
          logger.info({ taskId: job.id, url: loggableUrl(error.url), refusal: error.detail }, 'media URL refused');
        throw error.reason === 'too_large'
          ? taskFailures.fileTooLarge(config.asyncMaxBytes)
          : taskFailures.downloadFailed(`The media could not be downloaded: ${error.message}`);
      }
      throw error;
    }
    // One ffmpeg run: the probe now, the decode going on for `recognise` to take.
    const probed = await files.probeAndDecode(job.id, target, { maxSeconds: config.asyncMaxSeconds });
    if (probed.durationSeconds > config.asyncMaxSeconds)
      throw taskFailures.durationExceeded(config.asyncMaxSeconds, probed.durationSeconds);
    // Stored before the task is `ready`: a job resumed in another process from here on fetches it from the store.
    const mediaName = await files.share(job.id, target);
    const price = priceOf(prices, job.priority, probed.durationSeconds);
    const reservation = await ledger.reserve(job.account_id, price.amountMinor, `transcription:${job.id}`);
    const changes = {
      status: 'ready' as const,
      media_path: mediaName,
      file_size: size,
      duration_seconds: probed.durationSeconds,
      reservation_id: reservation.id,
    };
    if (!(await jobs.advance(job.id, owner, ['downloading'], changes))) {
      await ledger.settle(reservation.id, 0, 'Transcription cancelled');
      throw new Superseded();
    }
    return { ...job, ...changes };
  }

  /**
   * The job stopped without ending the task itself: a task that ended meanwhile (cancelled) has its media removed
   * here, as nobody else will; an unfinished one resumes here or in another process, and this process only lets go.
   */
  async function leaveFiles(job: JobRow): Promise<void> {
    try {
      const current = await jobs.get(job.id);
      if (current && (UNFINISHED as readonly string[]).includes(current.status)) await files.leave(job.id);
      else await files.remove(job.id);
    } catch (err) {
      logger.warn({ err, taskId: job.id }, 'task media not cleared; the sweep will');
    }
  }

  function resultOf(
    job: JobRow,
    transcript: EngineTranscript,
    speakers?: ReturnType<typeof diarize>,
  ): TranscriptionResult {
    const words: Word[] = transcript.words.map((w, i) => ({
      word: w.word,
      start: w.start,
      end: w.end,
      confidence: w.confidence,
      ...(speakers ? { speaker: speakers.wordSpeakers[i]! } : {}),
    }));
    return {
      text: transcript.text,
      duration: Math.round((Number(job.duration_seconds ?? transcript.duration) || transcript.duration) * 100) / 100,
      // The engine's own when it detected it (`auto`), so the result names a language, not the request's `auto`.
      language: transcript.language ?? job.language,
      words,
      ...(speakers ? { segments: speakers.segments, speakers: speakers.speakers } : {}),
    };
  }

  /** ready/processing → completed: decode and recognise (overlapped), diarize, capture. */
  async function recognise(job: JobRow, owner: string, signal: AbortSignal): Promise<void> {
    job = await advanceOrStop(job, owner, ['ready', 'processing'], {
      status: 'processing',
      progress: 0,
      started_at: job.started_at ?? now(),
    });
    const pcmPath = files.pcmPath(job.id);
    let lastWrite = 0;
    let lastProgress = 0;
    let seconds: number | undefined;
    /**
     * Once the decode has ended: its length against the task's limit, and the reservation grown to that length's
     * price. Either failing rejects the decode, which cancels the engine at once. A decode that is not intake's (a
     * job resumed after a restart, or in another process) runs under the async limit, the largest any route allows.
     */
    const decodeAndCheck = async (decodeSignal: AbortSignal) => {
      const pcm = await files.decode(job.id, job.media_path!, decodeSignal, config.asyncMaxSeconds);
      // Rounded as the result states it, so the price reserved here is the price captured below.
      seconds = Math.round(checkDecodedLength(pcm.maxSeconds, job.duration_seconds, pcm.durationSeconds) * 100) / 100;
      const price = priceOf(prices, job.priority, seconds);
      // `settled`: a job resumed after its capture (the capture below is then a no-op too).
      if (
        job.reservation_id &&
        (await ledger.reserveAtLeast(job.reservation_id, price.amountMinor)) === 'not_covered'
      ) {
        throw errors.insufficientBalance(
          `The decoded audio (${Math.round(seconds)} s) costs more than the file stated and the available balance covers.`,
        );
      }
      return pcm;
    };
    const transcript = await recogniseWhileDecoding(
      engine,
      {
        pcmPath,
        language: job.language,
        terms: parseJson<string[]>(job.terms) ?? undefined,
        expectedSeconds: Number(job.duration_seconds) || undefined,
      },
      decodeAndCheck,
      {
        signal,
        onProgress: (fraction) => {
          const progress = Math.min(99, Math.floor(fraction * 100));
          if (progress <= lastProgress || Date.now() - lastWrite < PROGRESS_INTERVAL_MS) return;
          lastWrite = Date.now();
          lastProgress = progress;
          void jobs.advance(job.id, owner, ['processing'], { progress }).catch(() => undefined);
        },
      },
    );
    const speakers = job.diarization ? diarize(pcmOf(await readFile(pcmPath)), transcript.words) : undefined;
    // The task's duration from here on is the one it is billed by (the decode's, within the stated one's tolerance).
    job = { ...job, duration_seconds: seconds ?? transcript.duration };
    const result = resultOf(job, transcript, speakers);
    const price = priceOf(prices, job.priority, result.duration);
    if (job.reservation_id) {
      await ledger.settle(
        job.reservation_id,
        price.amountMinor,
        `Transcription, ${price.minutes} min (${job.priority})`,
      );
    }
    await finish(job, owner, {
      status: 'completed',
      progress: 100,
      language: result.language,
      result: JSON.stringify(result),
      duration_seconds: job.duration_seconds,
      minutes_billed: price.minutes,
      cost_minor: price.amountMinor,
    });
  }

  return {
    /**
     * Runs a claimed job until it ends or is superseded; never throws. A failure of the database or the disk (not the
     * task's) leaves the task unfinished and answers `postpone`: the runner gives it back to be taken again later.
     */
    async run(job: JobRow, owner: string, signal: AbortSignal): Promise<RunOutcome> {
      try {
        if (job.attempts > MAX_ATTEMPTS) throw taskFailures.taskFailed();
        if (job.status === 'created' || job.status === 'downloading') job = await download(job, owner, signal);
        await recognise(job, owner, signal);
      } catch (error) {
        if (error instanceof Superseded || signal.aborted) {
          logger.info({ taskId: job.id }, 'job left alone: cancelled, or its lease was lost or given back');
          await leaveFiles(job);
          return;
        }
        if (error instanceof EngineError && (error.code === 'worker_crashed' || error.code === 'engine_closed')) {
          // Not the task's fault: the lease is given back and the task runs again (MAX_ATTEMPTS bounds the retries).
          logger.warn({ err: error, taskId: job.id }, 'engine worker lost; the task will be taken again');
          await leaveFiles(job);
          return;
        }
        const fault =
          infrastructureFaultOf(error) ?? ((await deps.diskLow?.().catch(() => false)) ? 'storage' : undefined);
        if (fault) {
          logger.warn(
            { taskId: job.id, fault, cause: faultSummary(error) },
            'transcription job interrupted by the infrastructure; the task will be taken again',
          );
          await leaveFiles(job);
          return 'postpone';
        }
        if (!(error instanceof ApiError)) logger.error({ err: error, taskId: job.id }, 'transcription job failed');
        await fail(job, owner, error).catch((err: unknown) =>
          logger.error({ err, taskId: job.id }, 'could not record the failure; the lease will expire and retry'),
        );
      }
    },
  };
}

function pcmOf(buffer: Buffer): Int16Array {
  const aligned = buffer.byteOffset % 2 === 0 ? buffer : Buffer.from(buffer);
  return new Int16Array(aligned.buffer, aligned.byteOffset, Math.floor(aligned.length / 2));
}

export type Pipeline = ReturnType<typeof createPipeline>;
