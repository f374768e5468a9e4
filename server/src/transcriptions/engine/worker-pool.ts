// A fixed pool of worker threads that each hold an expensive resource (a PocketSphinx decoder with its model): jobs
// wait in one FIFO queue and each worker runs one job at a time (see worker-protocol.ts for the messages).
//  - A worker that dies while running a job (uncaught error, terminate(), out of memory) is replaced and that job is
//    rejected with EngineError `worker_crashed`; the queue keeps being served. A native crash (SIGSEGV inside the C
//    library) cannot be contained this way: worker threads share the process, so it takes the whole server down.
//  - A worker whose setup fails (model missing) rejects the queued jobs with `engine_unavailable` and is not restarted
//    in a loop: the pool tries again when the next job arrives.
//  - Aborting a job's signal rejects it at once with `cancelled`; a running job is asked to stop (it does so between
//    segments) and its worker stays busy until it has; one that has not stopped after `cancelGraceMs` is terminated.
//  - Idle workers are unref'd, so an idle pool does not keep the process alive; close() shuts them all down.
//  - `.ts` entries start through tsx's hooks (see workers/start-worker.ts).
import type { Worker } from 'node:worker_threads';
import { startWorker } from '../../workers/start-worker.ts';
import { EngineError } from './engine.ts';
import type { FromWorker, SerializedError, ToWorker } from './worker-protocol.ts';

export interface WorkerPoolOptions {
  /** Number of worker threads (≥ 1). */
  size: number;
  /** The worker's entry module (it calls serveJobs). */
  url: URL;
  /** Passed to every worker as `workerData`. */
  workerData?: unknown;
  /** Names the workers in error messages, e.g. "PocketSphinx". */
  name?: string;
  /** How long a cancelled job may take to stop before its worker is terminated. Default 30 s. */
  cancelGraceMs?: number;
  /**
   * Start the workers with the first job instead of at once: a process that may never run a job (an `api` node, a
   * test of something else) then holds no worker and loads no model.
   */
  startOnFirstJob?: boolean;
}

export interface RunOptions {
  onProgress?: (fraction: number) => void;
  signal?: AbortSignal;
}

interface Task<Job, Result> {
  id: number;
  job: Job;
  resolve: (result: Result) => void;
  reject: (error: Error) => void;
  progress: number;
  /** Calls the caller's onProgress (errors ignored) and remembers the value. */
  report: (fraction: number) => void;
  settled: boolean;
  cleanup: () => void;
}

interface Slot<Job, Result> {
  worker: Worker;
  ready: boolean;
  /** Set from dispatch until the worker reports the job finished (done, failed or cancelled) or dies. */
  task: Task<Job, Result> | undefined;
  startupError: SerializedError | undefined;
  lastError: Error | undefined;
  cancelTimer: NodeJS.Timeout | undefined;
  dead: boolean;
}

export class WorkerPool<Job, Result> {
  private readonly options: Required<Omit<WorkerPoolOptions, 'workerData'>> & { workerData: unknown };
  private readonly slots: Slot<Job, Result>[] = [];
  private readonly queue: Task<Job, Result>[] = [];
  private nextId = 1;
  private closed = false;

  constructor(options: WorkerPoolOptions) {
    if (!Number.isInteger(options.size) || options.size < 1) throw new RangeError('pool size must be an integer ≥ 1');
    this.options = { name: 'engine', cancelGraceMs: 30_000, workerData: undefined, startOnFirstJob: false, ...options };
    if (!this.options.startOnFirstJob) this.startWorkers();
  }

  private startWorkers(): void {
    for (let i = this.slots.length; i < this.options.size; i++) this.slots.push(this.spawn());
  }

  get size(): number {
    return this.options.size;
  }

  /** Jobs running and jobs waiting. */
  stats(): { busy: number; queued: number } {
    return { busy: this.slots.filter((slot) => slot.task).length, queued: this.queue.length };
  }

  /** The live workers (for tests and diagnostics). */
  workers(): Worker[] {
    return this.slots.filter((slot) => !slot.dead).map((slot) => slot.worker);
  }

  /** The workers currently running a job (for tests that simulate a crash by terminating one). */
  busyWorkers(): Worker[] {
    return this.slots.filter((slot) => slot.task && !slot.dead).map((slot) => slot.worker);
  }

  run(job: Job, options: RunOptions = {}): Promise<Result> {
    const { signal, onProgress } = options;
    if (this.closed) return Promise.reject(this.closedError());
    if (signal?.aborted) return Promise.reject(cancelledError(signal));
    return new Promise<Result>((resolve, reject) => {
      const task: Task<Job, Result> = {
        id: this.nextId++,
        job,
        progress: 0,
        settled: false,
        resolve: (result) => {
          if (task.settled) return;
          task.settled = true;
          task.cleanup();
          if (task.progress < 1) task.report(1);
          resolve(result);
        },
        reject: (error) => {
          if (task.settled) return;
          task.settled = true;
          task.cleanup();
          reject(error);
        },
        cleanup: () => signal?.removeEventListener('abort', onAbort),
        report: (fraction) => {
          task.progress = fraction;
          try {
            onProgress?.(fraction);
          } catch {
            // A failing progress callback is the caller's bug; it must not take the pool (or the process) down.
          }
        },
      };
      const onAbort = () => this.cancel(task, signal!);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.queue.push(task);
      this.startWorkers();
      this.reviveDeadSlots();
      this.dispatch();
    });
  }

  /**
   * Rejects queued and running jobs with `engine_closed`, then lets each worker stop its job and release its resource
   * (a decoder is ~120 MB of native memory that terminating the thread would leak); a worker that has not exited
   * after `shutdownGraceMs` is terminated.
   */
  async close(shutdownGraceMs = 10_000): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const task of this.queue.splice(0)) task.reject(this.closedError());
    await Promise.all(
      this.slots.map(async (slot) => {
        clearTimeout(slot.cancelTimer);
        slot.task?.reject(this.closedError());
        slot.task = undefined;
        if (slot.dead) return;
        const exited = new Promise<void>((resolve) => slot.worker.once('exit', () => resolve()));
        slot.worker.postMessage({ type: 'shutdown' } satisfies ToWorker<Job>);
        const timer = setTimeout(() => void slot.worker.terminate(), shutdownGraceMs);
        await exited;
        clearTimeout(timer);
      }),
    );
  }

  private spawn(): Slot<Job, Result> {
    const worker = startWorker(this.options.url, this.options.workerData);
    worker.unref();
    const slot: Slot<Job, Result> = {
      worker,
      ready: false,
      task: undefined,
      startupError: undefined,
      lastError: undefined,
      cancelTimer: undefined,
      dead: false,
    };
    worker.on('message', (message: FromWorker<Result>) => this.onMessage(slot, message));
    worker.on('error', (error) => {
      slot.lastError = error;
    });
    worker.on('exit', (code) => this.onExit(slot, code));
    return slot;
  }

  private onMessage(slot: Slot<Job, Result>, message: FromWorker<Result>): void {
    if (message.type === 'ready') {
      slot.ready = true;
      this.dispatch();
      return;
    }
    if (message.type === 'fatal') {
      slot.startupError = message.error;
      return;
    }
    const task = slot.task;
    if (!task || task.id !== message.id) return;
    switch (message.type) {
      case 'progress': {
        const fraction = Math.min(1, Math.max(0, message.fraction));
        if (fraction > task.progress && !task.settled) task.report(fraction);
        return;
      }
      case 'done':
        task.resolve(message.result);
        break;
      case 'failed':
        task.reject(new EngineError(message.error.code ?? 'engine_failed', message.error.message));
        break;
      case 'cancelled':
        task.reject(new EngineError('cancelled', 'the transcription was cancelled'));
        break;
    }
    this.release(slot);
  }

  private onExit(slot: Slot<Job, Result>, code: number): void {
    slot.dead = true;
    clearTimeout(slot.cancelTimer);
    if (this.closed) return;
    const index = this.slots.indexOf(slot);
    const name = this.options.name;
    if (!slot.ready) {
      // Setup failed: fail what is waiting instead of restarting in a loop; the next run() tries again.
      const reason = slot.startupError?.message ?? slot.lastError?.message ?? `exit code ${code}`;
      const error = new EngineError('engine_unavailable', `the ${name} worker failed to start: ${reason}`);
      if (this.slots.every((s) => s.dead)) for (const task of this.queue.splice(0)) task.reject(error);
      this.updateRefs();
      return;
    }
    const task = slot.task;
    slot.task = undefined;
    if (task) {
      const why = slot.lastError ? `: ${slot.lastError.message}` : '';
      task.reject(
        new EngineError(
          'worker_crashed',
          `the ${name} worker stopped unexpectedly (exit code ${code}${why}) while running this job; ` +
            `it has been replaced and the job can be retried`,
        ),
      );
    }
    if (index >= 0) this.slots[index] = this.spawn();
    this.updateRefs();
  }

  /** Workers that failed to start are only retried when a job arrives. */
  private reviveDeadSlots(): void {
    for (let i = 0; i < this.slots.length; i++) if (this.slots[i]!.dead) this.slots[i] = this.spawn();
  }

  /** A worker keeps the process alive only while it runs a job, or is starting up while jobs wait. */
  private updateRefs(): void {
    for (const slot of this.slots) {
      if (slot.dead) continue;
      if (slot.task || (!slot.ready && this.queue.length > 0)) slot.worker.ref();
      else slot.worker.unref();
    }
  }

  private dispatch(): void {
    for (const slot of this.slots) {
      if (this.queue.length === 0) break;
      if (!slot.ready || slot.dead || slot.task) continue;
      const task = this.queue.shift()!;
      slot.task = task;
      slot.worker.postMessage({ type: 'run', id: task.id, job: task.job } satisfies ToWorker<Job>);
    }
    this.updateRefs();
  }

  private release(slot: Slot<Job, Result>): void {
    slot.task = undefined;
    clearTimeout(slot.cancelTimer);
    slot.cancelTimer = undefined;
    this.dispatch();
  }

  private cancel(task: Task<Job, Result>, signal: AbortSignal): void {
    const queued = this.queue.indexOf(task);
    if (queued >= 0) this.queue.splice(queued, 1);
    task.reject(cancelledError(signal));
    const slot = this.slots.find((s) => s.task === task);
    if (!slot || slot.dead) return this.updateRefs();
    slot.worker.postMessage({ type: 'cancel', id: task.id } satisfies ToWorker<Job>);
    slot.cancelTimer = setTimeout(() => {
      if (slot.task === task && !slot.dead) void slot.worker.terminate();
    }, this.options.cancelGraceMs);
    slot.cancelTimer.unref();
  }

  private closedError(): EngineError {
    return new EngineError('engine_closed', `the ${this.options.name} engine has been closed`);
  }
}

function cancelledError(signal: AbortSignal): EngineError {
  return new EngineError('cancelled', 'the transcription was cancelled', { cause: signal.reason });
}
