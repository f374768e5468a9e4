// Runs tasks at most `concurrency` at a time, taking turns between keys (accounts): each key has its own FIFO, and
// whenever a slot frees, the key whose turn it is gives its oldest task, then goes to the back of the ring. A key with
// a long backlog therefore delays another key's task by at most one task per slot, however much it has queued.
//
// Written here rather than taken from a library: the well-kept queues (p-queue, p-limit, bottleneck's groups) order
// by priority or limit per key, but none serves keys round-robin from one shared set of slots; this is a Map used as
// a ring of FIFOs, a few lines.

export interface FairScheduler {
  /** Runs `task` when it is `key`'s turn and a slot is free; a task whose `signal` aborts while it waits never runs. */
  run<T>(key: string, task: () => Promise<T>, signal?: AbortSignal): Promise<T>;
  /** Tasks waiting for a slot (all keys). */
  readonly waiting: number;
  readonly running: number;
}

interface Entry {
  start: () => void;
}

export function createFairScheduler(concurrency: number): FairScheduler {
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new RangeError('concurrency must be an integer ≥ 1');
  // Insertion order is the ring: the first key is the one whose turn it is.
  const queues = new Map<string, Entry[]>();
  let running = 0;
  let waiting = 0;

  function dispatch(): void {
    while (running < concurrency) {
      const next = queues.entries().next();
      if (next.done) return;
      const [key, queue] = next.value;
      const entry = queue.shift()!;
      queues.delete(key);
      if (queue.length > 0) queues.set(key, queue); // to the back of the ring
      waiting--;
      running++;
      entry.start();
    }
  }

  return {
    get waiting() {
      return waiting;
    },
    get running() {
      return running;
    },
    run<T>(key: string, task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
      if (signal?.aborted) return Promise.reject(signal.reason as Error);
      return new Promise<T>((resolve, reject) => {
        const onAbort = () => {
          const queue = queues.get(key);
          const index = queue?.indexOf(entry) ?? -1;
          if (index < 0) return;
          queue!.splice(index, 1);
          if (queue!.length === 0) queues.delete(key);
          waiting--;
          reject(signal!.reason as Error);
        };
        const entry: Entry = {
          start: () => {
            signal?.removeEventListener('abort', onAbort);
            // The slot is free (and the next task started) before the caller hears of this one's end.
            const done = () => {
              running--;
              dispatch();
            };
            Promise.resolve()
              .then(task)
              .then(
                (value) => {
                  done();
                  resolve(value);
                },
                (error: unknown) => {
                  done();
                  reject(error as Error);
                },
              );
          },
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        const queue = queues.get(key);
        if (queue) queue.push(entry);
        else queues.set(key, [entry]);
        waiting++;
        dispatch();
      });
    },
  };
}
