// The job runner of one server process: as many slots as the engine has workers, each taking the next job from the
// durable queue, running it under a lease kept alive by a heartbeat, and then looking again. Idle slots sleep until
// a new task wakes them (queued by this process, or announced by another one on PostgreSQL: roles/job-wakeup.ts) or
// the poll interval passes (announcements missed, expired leases).
// Stopping gives every held lease back at once, so another process can resume those tasks without waiting.
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { createPollingLoops } from '../background/polling-loops.ts';
import type { JobQueue } from './jobs.ts';
import type { Pipeline, RunOutcome } from './pipeline.ts';

export interface RunnerOptions {
  slots: number;
  leaseMs: number;
  pollMs: number;
}

export function createRunner(jobs: JobQueue, pipeline: Pipeline, options: RunnerOptions, logger: Logger) {
  const owner = `worker-${randomUUID()}`;
  const held = new Map<string, AbortController>();
  /** Set by stop(): the jobs still held are handed back, not given up. */
  let stopping = false;
  const loops = createPollingLoops({ count: options.slots, pollMs: options.pollMs, name: 'job runner', logger });

  async function work(): Promise<void> {
    const job = await jobs.claim(owner);
    if (!job) return loops.sleep(options.pollMs);
    const controller = new AbortController();
    held.set(job.id, controller);
    const heartbeat = setInterval(
      () => {
        jobs
          .renew(job.id, owner)
          .then((kept) => {
            if (!kept) controller.abort();
          })
          .catch((err: unknown) => logger.warn({ err, taskId: job.id }, 'lease renewal failed'));
      },
      Math.max(100, Math.floor(options.leaseMs / 3)),
    );
    let outcome: RunOutcome;
    try {
      outcome = await pipeline.run(job, owner, controller.signal);
    } finally {
      clearInterval(heartbeat);
      held.delete(job.id);
      // A task postponed after a failure of the database or the disk is taken again once a lease's time has passed
      // (that attempt not counted); if even that cannot be written, its lease runs out all the same.
      const release = stopping
        ? jobs.handBack(job.id, owner)
        : outcome === 'postpone'
          ? jobs.postpone(job.id, owner, options.leaseMs)
          : jobs.release(job.id, owner);
      await release.catch(() => undefined);
    }
  }

  return {
    owner,
    start(): void {
      loops.start(work);
    },
    /** Jobs this process holds now. */
    running(): number {
      return held.size;
    },
    /** A task was created: wake an idle slot now instead of at the next poll. */
    wake(): void {
      loops.wakeOne();
    },
    /** Stops claiming, aborts the jobs in flight and hands their leases back; resolves when every slot has returned. */
    async stop(): Promise<void> {
      stopping = true;
      await loops.stop(() => {
        for (const controller of held.values()) controller.abort();
      });
    },
  };
}

export type Runner = ReturnType<typeof createRunner>;
