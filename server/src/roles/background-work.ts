// The background work of a process whose role runs it (`worker` and `all`): the transcription job runner, the webhook
// dispatcher with its event sweep, the sweep of stream tickets and sessions left by dead processes, any further sweeps
// (the media store's), and on PostgreSQL the listener that wakes the runner when another process queues a task.
// An `api` process starts none of it: its tasks wait in the database for a worker.
import type { Logger } from 'pino';
import type { StreamService } from '../streaming/session-service.ts';
import type { Runner } from '../transcriptions/runner.ts';
import type { WebhookDeliveryService } from '../webhooks/service.ts';
import { listenForJobs, type JobListener } from './job-wakeup.ts';

/** A periodic job of this process that only needs stopping (started by its own constructor). */
export interface Sweep {
  stop(): Promise<void>;
}

export interface BackgroundParts {
  runner: Runner;
  webhooks: Pick<WebhookDeliveryService, 'start' | 'stop'>;
  streams: Pick<StreamService, 'startSweeper' | 'stopSweeper'>;
  /** Starts the other sweeps (called once, when the work starts). */
  sweeps?: () => Sweep[];
  /** Set on PostgreSQL: other processes announce new tasks there. */
  databaseUrl: string | undefined;
  /** This process's id in those announcements (its own are not listened to). */
  nodeId: string;
  logger: Logger;
}

export interface BackgroundWork {
  /** False once stopping began. */
  active(): boolean;
  /**
   * Stops taking work and hands the held jobs back: no more claims, the jobs in flight aborted and their leases
   * released (another worker resumes them at once), the dispatcher and the sweeps ended.
   */
  stop(): Promise<void>;
}

export async function startBackgroundWork(parts: BackgroundParts): Promise<BackgroundWork> {
  const { runner, webhooks, streams, databaseUrl, nodeId, logger } = parts;
  let listener: JobListener | undefined;
  if (databaseUrl) {
    listener = listenForJobs({ databaseUrl, nodeId, onJob: () => runner.wake(), logger });
    await listener.ready;
  }
  runner.start();
  webhooks.start();
  streams.startSweeper();
  const sweeps = parts.sweeps?.() ?? [];
  let active = true;
  let stopped: Promise<void> | undefined;

  return {
    active: () => active,
    stop() {
      active = false;
      stopped ??= (async () => {
        streams.stopSweeper();
        await Promise.all([listener?.close(), runner.stop(), webhooks.stop(), ...sweeps.map((sweep) => sweep.stop())]);
      })();
      return stopped;
    },
  };
}
