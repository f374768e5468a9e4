// The loop scaffolding shared by this process's background workers (the transcription job runner, the webhook
// dispatcher): `count` loops each calling `work` again and again; `work` sleeps through `sleep` when it found nothing
// to do, and a sleep ends early on `wakeOne`/`wakeAll` (something was queued in this process) or on `stop`. A `work`
// that throws (the database was unreachable, say) is logged and retried after the poll interval.
import type { Logger } from 'pino';

export interface PollingLoopsOptions {
  /** Loops run at once. */
  count: number;
  /** Sleep after a failed `work`. */
  pollMs: number;
  /** Names the loops in logs. */
  name: string;
  logger: Logger;
}

export function createPollingLoops(options: PollingLoopsOptions) {
  let running = false;
  const sleepers = new Set<() => void>();
  const loops: Promise<void>[] = [];

  /** Waits `ms`, less when woken or stopped; at once when already stopped. */
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      if (!running) return resolve();
      const done = () => {
        clearTimeout(timer);
        sleepers.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      sleepers.add(done);
    });

  async function loop(work: () => Promise<void>): Promise<void> {
    while (running) {
      try {
        await work();
      } catch (err) {
        options.logger.error({ err }, `${options.name}: claiming failed; retrying after the poll interval`);
        await sleep(options.pollMs);
      }
    }
  }

  return {
    sleep,
    start(work: () => Promise<void>): void {
      if (running) return;
      running = true;
      for (let i = 0; i < options.count; i += 1) loops.push(loop(work));
    },
    wakeOne(): void {
      const [first] = sleepers;
      first?.();
    },
    wakeAll(): void {
      for (const wakeUp of [...sleepers]) wakeUp();
    },
    /** Ends the loops: `interrupt` cuts short the work in flight; resolves when every loop has returned. */
    async stop(interrupt: () => void = () => undefined): Promise<void> {
      running = false;
      for (const wakeUp of [...sleepers]) wakeUp();
      interrupt();
      await Promise.all(loops.splice(0));
    },
  };
}
