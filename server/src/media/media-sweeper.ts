// The periodic clean-up of the media store, run by the processes that do background work (roles `worker` and `all`):
// media of tasks that ended without their worker removing it (a process killed after the final state), and media
// left by an intake that died before its task row existed. Media is removed by its task's final state in the normal
// course; this only catches what a crash left behind, so a slow cadence is enough.
import type { Logger } from 'pino';
import type { MediaStore } from './media-store.ts';

/** How often the store is swept (once at start, then at this interval). */
export const MEDIA_SWEEP_INTERVAL_MS = 5 * 60_000;

export interface MediaSweeper {
  /** Resolves when the sweep in flight (if any) has ended. */
  stop(): Promise<void>;
}

/** Sweeps now and then every `intervalMs` until stopped; a failed sweep is logged and tried again at the next tick. */
export function startMediaSweeper(
  store: MediaStore,
  logger: Logger,
  intervalMs: number = MEDIA_SWEEP_INTERVAL_MS,
): MediaSweeper {
  let running: Promise<void> | undefined;
  const run = () => {
    if (running) return; // the previous sweep is still deleting
    running = store
      .sweep()
      .then((deleted) => {
        if (deleted > 0) logger.info({ chunks: deleted }, 'media sweep: removed media of ended or abandoned tasks');
      })
      .catch((err: unknown) => logger.error({ err }, 'media sweep failed; it runs again later'))
      .finally(() => (running = undefined));
  };
  if (!store.shared) return { stop: async () => undefined };
  run();
  const timer = setInterval(run, intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
