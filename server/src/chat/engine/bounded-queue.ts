// A per-model admission queue: at most `slots` generations run at once (the model's context sequences) and at most
// `maxWaiting` more wait for a slot, so the cores are never oversubscribed and a burst does not pile up without end.
// A waiter whose request is abandoned (client gone) leaves the queue without ever taking a slot.
//
// Fair between accounts: each account has its own FIFO of waiters and at most `maxWaitingPerAccount` in it (one more
// is AccountQueueFullError, answered 429), and a freed slot goes to the accounts in turns (the account whose turn it
// is gets it, then goes to the back of the ring). One account's backlog therefore delays another account's request
// by at most one generation per slot, and cannot fill the whole queue so that everyone else is refused as busy.
// Written here: the well-kept queues (p-queue, p-limit) have no per-key turns; this is a Map used as a ring of FIFOs.

/** The model's whole queue is full (every account together): answered as busy (503). */
export class QueueFullError extends Error {
  override name = 'QueueFullError';
}

/** This account already has as many requests waiting for the model as it may: answered 429. */
export class AccountQueueFullError extends Error {
  override name = 'AccountQueueFullError';
}

export interface BoundedQueue {
  /**
   * Resolves with a release function once a slot is free and it is `account`'s turn; rejects when the queue (or the
   * account's share of it) is full or `signal` aborts.
   */
  acquire(account: string, signal?: AbortSignal): Promise<() => void>;
  /** The refusal `acquire(account)` would meet now, if any (so a caller can refuse before it starts other work). */
  refusal(account: string): QueueFullError | AccountQueueFullError | undefined;
  readonly running: number;
  readonly waiting: number;
}

interface Waiter {
  grant: () => void;
}

export function createBoundedQueue(slots: number, maxWaiting: number, maxWaitingPerAccount = maxWaiting): BoundedQueue {
  let running = 0;
  let waiting = 0;
  // Insertion order is the ring: the first account is the one whose turn it is.
  const waiters = new Map<string, Waiter[]>();

  /** The next waiter in turn, removed from its FIFO (its account moved to the back of the ring). */
  const nextInTurn = (): Waiter | undefined => {
    const first = waiters.entries().next();
    if (first.done) return undefined;
    const [account, fifo] = first.value;
    const waiter = fifo.shift()!;
    waiters.delete(account);
    if (fifo.length > 0) waiters.set(account, fifo);
    waiting--;
    return waiter;
  };

  const releaser = () => {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = nextInTurn();
      if (next) next.grant();
      else running--;
    };
  };

  return {
    get running() {
      return running;
    },
    get waiting() {
      return waiting;
    },
    refusal(account) {
      if (running < slots) return undefined;
      if ((waiters.get(account)?.length ?? 0) >= maxWaitingPerAccount) {
        return new AccountQueueFullError('account queue full');
      }
      if (waiting >= maxWaiting) return new QueueFullError('queue full');
      return undefined;
    },
    acquire(account, signal) {
      if (signal?.aborted) return Promise.reject(signal.reason as Error);
      if (running < slots) {
        running++;
        return Promise.resolve(releaser());
      }
      const refused = this.refusal(account);
      if (refused) return Promise.reject(refused);
      const fifo = waiters.get(account);
      return new Promise((resolve, reject) => {
        const waiter: Waiter = {
          grant: () => {
            signal?.removeEventListener('abort', onAbort);
            resolve(releaser());
          },
        };
        const onAbort = () => {
          const own = waiters.get(account);
          const index = own?.indexOf(waiter) ?? -1;
          if (index >= 0) {
            own!.splice(index, 1);
            if (own!.length === 0) waiters.delete(account);
            waiting--;
          }
          reject(signal!.reason as Error);
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        if (fifo) fifo.push(waiter);
        else waiters.set(account, [waiter]);
        waiting++;
      });
    },
  };
}
