// A per-model admission queue: at most `slots` generations run at once (the model's context sequences) and at most
// `maxWaiting` more wait for a slot, so the cores are never oversubscribed and a burst does not pile up without end.
// A waiter whose request is abandoned (client gone) leaves the queue without ever taking a slot.

export class QueueFullError extends Error {
  override name = 'QueueFullError';
}

export interface BoundedQueue {
  /** Resolves with a release function once a slot is free; rejects when the queue is full or `signal` aborts. */
  acquire(signal?: AbortSignal): Promise<() => void>;
  readonly running: number;
  readonly waiting: number;
}

export function createBoundedQueue(slots: number, maxWaiting: number): BoundedQueue {
  let running = 0;
  const waiters: { grant: () => void }[] = [];

  const releaser = () => {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = waiters.shift();
      if (next) next.grant();
      else running--;
    };
  };

  return {
    get running() {
      return running;
    },
    get waiting() {
      return waiters.length;
    },
    acquire(signal) {
      if (signal?.aborted) return Promise.reject(signal.reason as Error);
      if (running < slots) {
        running++;
        return Promise.resolve(releaser());
      }
      if (waiters.length >= maxWaiting) return Promise.reject(new QueueFullError('queue full'));
      return new Promise((resolve, reject) => {
        const waiter = {
          grant: () => {
            signal?.removeEventListener('abort', onAbort);
            resolve(releaser());
          },
        };
        const onAbort = () => {
          const index = waiters.indexOf(waiter);
          if (index >= 0) waiters.splice(index, 1);
          reject(signal!.reason as Error);
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        waiters.push(waiter);
      });
    },
  };
}
