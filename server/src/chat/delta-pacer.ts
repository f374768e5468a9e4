// When the text of a streamed answer is written: content deltas at most every `intervalMs`, each holding the text
// made since the one before, and each written just after a token arrives.
//
// A small model makes a token in well under a millisecond; a write per token (and a client's wake-up per token)
// then cost the model a fifth of its pace on two cores, hence the interval. Where in the token's cycle a write
// happens matters too. node-llama-cpp hands each token to the JavaScript thread that drives the model, which starts
// the next evaluation on a libuv pool thread and then is idle until that evaluation ends. A write queued with
// `setImmediate` from the token runs in that idle time. A write on a timer instead runs when the event loop next wakes,
// mostly when a pool job has just ended and the model waits for that thread: each such write delayed the next token
// by ≈ 0.2 ms (measured per token: 0.62 ms against 0.39 ms for a token without a write, ten writes per 0.1 s answer
// on the tiny test model, with the model on the server's thread). The server's stream paces its SSE writes this way,
// and the model's worker thread (engine/llama-worker.ts) its messages to the server's thread.
// So a token that finds the interval passed queues the write itself; a timer only covers a model that makes no
// further token within `graceMs` after the interval (a slow one), so no text waits longer than about the sum.
export interface DeltaPacerOptions {
  /** The shortest time between two writes. */
  intervalMs: number;
  /** How long after the interval the text still waiting is written even without a new token. */
  graceMs: number;
}

export interface DeltaPacer {
  /** Takes the text of the next token(s). */
  add(text: string): void;
  /** Sets where the text goes, and writes what waited for it: text can come before the stream exists. */
  start(write: (text: string) => void): void;
  /** Writes what waits now (the model stopped: the reader gets the rest at once). */
  flush(): void;
  /** Stops the timer (the answer ended). */
  stop(): void;
}

export function createDeltaPacer({ intervalMs, graceMs }: DeltaPacerOptions): DeltaPacer {
  let write: ((text: string) => void) | undefined;
  let pending = '';
  let lastWrite = -Infinity;
  let writeQueued = false;
  let timer: NodeJS.Timeout | undefined;

  const flush = () => {
    writeQueued = false;
    if (!pending || !write) return;
    write(pending);
    pending = '';
    lastWrite = performance.now();
  };
  const due = () => performance.now() - lastWrite >= intervalMs;
  const queueWrite = () => {
    if (writeQueued) return;
    writeQueued = true;
    setImmediate(flush);
  };
  const armTimer = () => {
    if (timer) return;
    // Node times timers from the event loop's cached clock, so one can fire a little early: it then waits again.
    const wait = Math.max(1, Math.ceil(lastWrite + intervalMs + graceMs - performance.now()));
    timer = setTimeout(() => {
      timer = undefined;
      if (!pending) return;
      if (due()) queueWrite();
      else armTimer();
    }, wait);
  };

  return {
    add(text) {
      if (!text) return;
      pending += text;
      if (due()) queueWrite();
      else armTimer();
    },
    start(target) {
      write = target;
      flush();
    },
    flush,
    stop() {
      clearTimeout(timer);
      timer = undefined;
    },
  };
}
