// The parent side of the whisper engine's model processes (child.ts): a fixed number of processes, one model each, one
// job at a time each, and one FIFO queue here. The native decoder cannot be stopped or trusted to settle, so:
//  - every job has a deadline; an overdue job's process is killed (SIGKILL) and replaced, and the job fails;
//  - cancelling a running job kills its process at once (the decode would otherwise run to its end) and replaces it;
//  - a process that dies on its own (a native abort, out of memory) fails its job with `worker_crashed` (retryable)
//    and is replaced; one that cannot load the model fails the waiting jobs with `engine_unavailable` and is only
//    tried again when the next job arrives — never in a loop.
//  - with a memory cap (`maxRssBytes`), a process whose resident memory passes it while it decodes is killed and
//    replaced, its job failed with `worker_crashed` (retryable): the native decoder's memory is outside V8's heap
//    limits, and a corrupt or hostile input can grow it until the machine swaps. Read from /proc every
//    RSS_CHECK_MS (Linux; elsewhere there is no cap).
// With `reservedForUrgent`, that many processes only ever run urgent jobs (a live stream's next window).
// Idle processes are unreferenced, so they do not keep the server's process alive; close() kills them all.
import { fork, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { EngineError } from '../engine.ts';
import type { FromWhisperChild, WhisperChildResult, WhisperChildSettings, WhisperJob } from './protocol.ts';

export interface WhisperRunOptions {
  onProgress?: (fraction: number) => void;
  signal?: AbortSignal;
  /** The job's deadline, from its dispatch to a process. */
  timeoutMs: number;
  /**
   * Goes before the queued jobs that are not urgent (a live stream's next window: a stream waits for it in real
   * time, a file's job is measured in seconds of its own). A running job is never interrupted.
   */
  urgent?: boolean;
}

interface Task {
  job: WhisperJob;
  options: WhisperRunOptions;
  resolve: (result: WhisperChildResult) => void;
  reject: (error: Error) => void;
  settled: boolean;
  timer?: NodeJS.Timeout;
}

/** How often a decoding process's resident memory is compared with the cap. */
const RSS_CHECK_MS = 250;

/** A process's resident memory in bytes (VmRSS), or undefined where /proc cannot tell. */
function residentBytes(pid: number): number | undefined {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

export interface WhisperPoolOptions {
  /** A process resident above this many bytes while it decodes is killed and replaced (undefined: no cap). */
  maxRssBytes?: number | undefined;
  /**
   * Processes that jobs which are not urgent never take (live streams' windows), so a stream's next window does not
   * wait for a file's decode to end. Less than the pool's size; 0 (the default) shares every process.
   */
  reservedForUrgent?: number;
}

interface Slot {
  child: ChildProcess;
  ready: boolean;
  dead: boolean;
  task: Task | undefined;
  /** Set when this pool killed the process (cancel, deadline, close): its exit is no crash. */
  killed: boolean;
  /** Set when the memory cap killed it: the message its job fails with. */
  overCap: string | undefined;
  fatal: string | undefined;
}

const childEntry = new URL('./child.ts', import.meta.url);

function forkChild(settings: WhisperChildSettings): ChildProcess {
  // `.ts` entries run through tsx's loader, as the server itself does.
  const execArgv = childEntry.pathname.endsWith('.ts') ? ['--import', import.meta.resolve('tsx')] : [];
  return fork(fileURLToPath(childEntry), [JSON.stringify(settings)], {
    execArgv,
    stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
    serialization: 'advanced',
  });
}

export class WhisperProcessPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Task[] = [];
  private nextId = 1;
  private closed = false;
  /** The largest resident memory a process reported (after loading or after a job), in bytes. */
  peakRss = 0;
  /** Processes killed for passing the memory cap (diagnostics, tests). */
  overCapKills = 0;
  private watchdog: NodeJS.Timeout | undefined;

  constructor(
    private readonly size: number,
    private readonly settings: WhisperChildSettings,
    private readonly options: WhisperPoolOptions = {},
  ) {}

  /** The live processes' ids (for tests and diagnostics). */
  pids(): number[] {
    return this.slots.filter((slot) => !slot.dead && slot.child.pid).map((slot) => slot.child.pid!);
  }

  /** The ids of the processes running a job. */
  busyPids(): number[] {
    return this.slots.filter((slot) => slot.task && !slot.dead && slot.child.pid).map((slot) => slot.child.pid!);
  }

  run(job: Omit<WhisperJob, 'id'>, options: WhisperRunOptions): Promise<WhisperChildResult> {
    if (this.closed) return Promise.reject(closedError());
    if (options.signal?.aborted) return Promise.reject(cancelledError());
    return new Promise((resolve, reject) => {
      const onAbort = () => this.cancel(task);
      const finish = () => {
        task.settled = true;
        clearTimeout(task.timer);
        options.signal?.removeEventListener('abort', onAbort);
      };
      const task: Task = {
        job: { ...job, id: this.nextId++ },
        options,
        settled: false,
        resolve: (result) => {
          if (task.settled) return;
          finish();
          resolve(result);
        },
        reject: (error) => {
          if (task.settled) return;
          finish();
          reject(error);
        },
      };
      options.signal?.addEventListener('abort', onAbort, { once: true });
      const firstNotUrgent = options.urgent ? this.queue.findIndex((queued) => !queued.options.urgent) : -1;
      if (firstNotUrgent >= 0) this.queue.splice(firstNotUrgent, 0, task);
      else this.queue.push(task);
      this.fill();
      this.dispatch();
    });
  }

  /** Fails what is queued or running with `engine_closed` and kills every process. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.watchdog);
    for (const task of this.queue.splice(0)) task.reject(closedError());
    await Promise.all(
      this.slots.map(async (slot) => {
        slot.task?.reject(closedError());
        slot.task = undefined;
        if (slot.dead) return;
        const exited = new Promise((resolve) => slot.child.once('exit', resolve));
        slot.child.ref(); // an idle process is unreferenced: without this the caller's process could end first
        this.kill(slot);
        await exited;
      }),
    );
  }

  /** Starts processes up to the pool's size (dead slots are replaced). */
  private fill(): void {
    for (let i = 0; i < this.size; i++) {
      const slot = this.slots[i];
      if (!slot || slot.dead) this.slots[i] = this.spawn();
    }
  }

  private spawn(): Slot {
    const child = forkChild(this.settings);
    const slot: Slot = {
      child,
      ready: false,
      dead: false,
      task: undefined,
      killed: false,
      overCap: undefined,
      fatal: undefined,
    };
    child.on('message', (message: FromWhisperChild) => this.onMessage(slot, message));
    child.on('error', () => undefined); // a failed spawn also emits 'exit', handled there
    child.on('exit', (code, signal) => this.onExit(slot, code, signal));
    this.updateRefs();
    return slot;
  }

  private onMessage(slot: Slot, message: FromWhisperChild): void {
    if (message.type === 'ready') {
      slot.ready = true;
      this.peakRss = Math.max(this.peakRss, message.rss);
      this.dispatch();
      return;
    }
    if (message.type === 'fatal') {
      slot.fatal = message.message;
      return;
    }
    const task = slot.task;
    if (!task || task.job.id !== message.id) return;
    if (message.type === 'progress') {
      try {
        task.options.onProgress?.(message.fraction);
      } catch {
        // A failing progress callback is the caller's bug; it must not take the engine down.
      }
      return;
    }
    if (message.type === 'done') {
      this.peakRss = Math.max(this.peakRss, message.result.rss);
      task.resolve(message.result);
    } else {
      task.reject(new EngineError(message.invalidAudio ? 'invalid_audio' : 'engine_failed', message.message));
    }
    slot.task = undefined;
    this.dispatch();
  }

  private onExit(slot: Slot, code: number | null, signal: NodeJS.Signals | null): void {
    slot.dead = true;
    if (this.closed) return;
    const task = slot.task;
    slot.task = undefined;
    if (!slot.ready) {
      // The model did not load: fail what waits (no restart loop); the next job tries again.
      const detail = slot.fatal ?? `the process ended: ${signal ?? `exit code ${code}`}`;
      const error = new EngineError('engine_unavailable', `the whisper model could not be loaded (${detail})`);
      task?.reject(error);
      if (this.slots.every((s) => s.dead)) for (const waiting of this.queue.splice(0)) waiting.reject(error);
      this.updateRefs();
      return;
    }
    if (task && slot.overCap) task.reject(new EngineError('worker_crashed', slot.overCap));
    else if (task && !slot.killed) {
      task.reject(
        new EngineError(
          'worker_crashed',
          `the whisper model process stopped unexpectedly (${signal ?? `exit code ${code}`}) while running this job; ` +
            'it has been replaced and the job can be retried',
        ),
      );
    }
    // Replaced at once, so the next job does not wait for the model to load.
    const index = this.slots.indexOf(slot);
    if (index >= 0) this.slots[index] = this.spawn();
    this.dispatch();
  }

  private dispatch(): void {
    // Urgent jobs are queued ahead of the others, so once the head of the queue may not start, nothing behind it may.
    const forOthers = this.size - (this.options.reservedForUrgent ?? 0);
    let othersRunning = this.slots.filter((slot) => slot.task && !slot.task.options.urgent).length;
    for (const slot of this.slots) {
      if (this.queue.length === 0) break;
      if (!slot.ready || slot.dead || slot.task) continue;
      if (!this.queue[0]!.options.urgent && othersRunning >= forOthers) break;
      const task = this.queue.shift()!;
      if (!task.options.urgent) othersRunning += 1;
      slot.task = task;
      task.timer = setTimeout(() => {
        if (slot.task !== task) return;
        task.reject(
          new EngineError(
            'engine_failed',
            `the whisper decode took longer than its limit of ${Math.round(task.options.timeoutMs / 1000)} s`,
          ),
        );
        this.kill(slot);
      }, task.options.timeoutMs);
      task.timer.unref();
      slot.child.send({ type: 'run', job: task.job });
    }
    this.updateRefs();
    this.watchMemory();
  }

  /**
   * Checks the decoding processes against the memory cap when a job starts and while any decodes; stops when none
   * does. The check at the start is what catches a short decode: one that ends within the interval is never seen
   * by the interval's checks, however far over the cap its process is.
   */
  private watchMemory(): void {
    if (!this.options.maxRssBytes || this.closed) return;
    this.checkMemory();
    if (this.watchdog) return;
    this.watchdog = setInterval(() => {
      if (!this.checkMemory()) {
        clearInterval(this.watchdog);
        this.watchdog = undefined;
      }
    }, RSS_CHECK_MS);
    this.watchdog.unref();
  }

  /** Kills each decoding process over the memory cap; whether any process was decoding. */
  private checkMemory(): boolean {
    const cap = this.options.maxRssBytes!;
    const busy = this.slots.filter((slot) => slot.task && !slot.dead && !slot.killed && slot.child.pid);
    for (const slot of busy) {
      const rss = residentBytes(slot.child.pid!);
      if (rss === undefined || rss <= cap) continue;
      this.peakRss = Math.max(this.peakRss, rss);
      this.overCapKills++;
      slot.overCap =
        `the whisper model process used ${Math.round(rss / 2 ** 20)} MB, over its cap of ` +
        `${Math.round(cap / 2 ** 20)} MB (SCRIBE_WHISPER_MAX_RSS_MB); it has been replaced and the job can be retried`;
      this.kill(slot);
    }
    return busy.length > 0;
  }

  private cancel(task: Task): void {
    const queued = this.queue.indexOf(task);
    if (queued >= 0) this.queue.splice(queued, 1);
    task.reject(cancelledError());
    const slot = this.slots.find((s) => s.task === task);
    if (slot && !slot.dead) this.kill(slot);
    this.updateRefs();
  }

  private kill(slot: Slot): void {
    slot.killed = true;
    slot.child.kill('SIGKILL');
  }

  /** A process keeps the server's process alive only while it runs a job, or starts while jobs wait. */
  private updateRefs(): void {
    for (const slot of this.slots) {
      if (slot.dead) continue;
      const needed = slot.task !== undefined || (!slot.ready && this.queue.length > 0);
      if (needed) {
        slot.child.ref();
        slot.child.channel?.ref();
      } else {
        slot.child.unref();
        slot.child.channel?.unref();
      }
    }
  }
}

function cancelledError(): EngineError {
  return new EngineError('cancelled', 'the transcription was cancelled');
}

function closedError(): EngineError {
  return new EngineError('engine_closed', 'the whisper engine has been closed');
}
