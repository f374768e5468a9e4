// When the text of an answer is handed on: at most every `intervalMs`, each piece holding the text made since the one
// before, and each handed on just after a token arrives. Engines pace their own text this way when a request asks
// for it (GenerateRequest.deltaIntervalMs), so it is paced once, where it is made: the llama model's worker thread
// sends a message per piece, and the server writes each message it gets as one SSE event.
//
// A small model makes a token in well under a millisecond; a write per token (and a client's wake-up per token)
// then cost the model a fifth of its pace on two cores, hence the interval. Every wake-up of another thread costs the
// model too: a message every 10 ms from a second thread to the thread driving the model slowed the model by 3–5 %,
// where a timer on the model's own thread cost nothing. So text is paced once: paced a second time on the server's
// thread, a piece that came a little before the server's own interval had passed waited for a timer (about a third
// of them), which woke that thread once more and held the text up to 2 ms longer.
// Where in the token's cycle a write happens matters too. node-llama-cpp hands each token to the JavaScript thread
// that drives the model, which starts the next evaluation on a libuv pool thread and then is idle until it ends. A
// write queued with `setImmediate` from the token runs in that idle time. A write on a timer instead runs when the
// event loop next wakes, mostly when a pool job has just ended and the model waits for that thread: each such write
// delayed the next token by ≈ 0.2 ms (measured per token: 0.62 ms against 0.39 ms for a token without a write, ten
// writes per 0.1 s answer on the tiny test model).
// So a token that finds the interval passed queues the write itself; a timer only covers a model that makes no
// further token within `graceMs` after the interval (a slow one), so no text waits longer than about the sum, and a
// write ends the timer that was waiting for it.
export interface DeltaPacerOptions {
  /** The shortest time between two writes. */
  intervalMs: number;
  /** How long after the interval the text still waiting is written even without a new token. */
  graceMs: number;
  /** Where the text goes. */
  write(text: string): void;
}

export interface DeltaPacer {
  /** Takes the text of the next token(s). */
  add(text: string): void;
  /** Writes what waits now (the model stopped: the reader gets the rest at once). */
  flush(): void;
  /** Stops the timer (the answer ended). */
  stop(): void;
}

export function createDeltaPacer({ intervalMs, graceMs, write }: DeltaPacerOptions): DeltaPacer {
  let pending = '';
  let lastWrite = -Infinity;
  let writeQueued = false;
  let timer: NodeJS.Timeout | undefined;

  const stopTimer = () => {
    clearTimeout(timer);
    timer = undefined;
  };
  const flush = () => {
    writeQueued = false;
    if (!pending) return;
    stopTimer();
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
    flush,
    stop: stopTimer,
  };
}

/** What an engine hands an answer's text to, as a request asks for it (GenerateRequest `onDelta`, `deltaIntervalMs`). */
export interface DeltaSink {
  add(text: string): void;
  /** The model stopped: hands on the text still held (before the engine's answer settles) and stops the timer. */
  end(): void;
}

/** How long after the interval held text waits for another token before it is handed on without one. */
const GRACE_MS = 2;

export function deltaSink(onDelta: ((text: string) => void) | undefined, intervalMs = 0): DeltaSink {
  if (!onDelta) return { add: () => undefined, end: () => undefined };
  if (intervalMs <= 0) return { add: (text) => text && onDelta(text), end: () => undefined };
  const pacer = createDeltaPacer({ intervalMs, graceMs: GRACE_MS, write: onDelta });
  return {
    add: pacer.add,
    end() {
      pacer.flush();
      pacer.stop();
    },
  };
}
