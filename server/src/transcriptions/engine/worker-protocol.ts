// The messages between a WorkerPool and its worker threads, and the worker side of them (`serveJobs`): the worker
// sets itself up once (e.g. loads a model), says `ready` (or `fatal` and exits), then runs the jobs it is sent one at a
// time, reporting progress, the result or an error, and stops a job when asked to cancel it — at the next point the
// job itself checks (`context.checkCancelled()`), since synchronous native work cannot be interrupted.
import { parentPort } from 'node:worker_threads';
import { EngineError, type EngineErrorCode } from './engine.ts';

export interface SerializedError {
  message: string;
  code?: EngineErrorCode;
}

export type ToWorker<Job> = { type: 'run'; id: number; job: Job } | { type: 'cancel'; id: number };

export type FromWorker<Result> =
  | { type: 'ready' }
  | { type: 'fatal'; error: SerializedError }
  | { type: 'progress'; id: number; fraction: number }
  | { type: 'done'; id: number; result: Result }
  | { type: 'failed'; id: number; error: SerializedError }
  | { type: 'cancelled'; id: number };

export interface JobContext {
  /** Reports the share of the job done, in [0, 1]. */
  progress(fraction: number): void;
  /** Throws JobCancelled if the pool asked to cancel this job. Call it between units of work. */
  checkCancelled(): void;
}

export class JobCancelled extends Error {
  constructor() {
    super('job cancelled');
  }
}

export type JobHandler<Job, Result> = (job: Job, context: JobContext) => Promise<Result>;

/** Worker entry: `setup` runs once; its handler then serves every job this thread is sent. */
export function serveJobs<Job, Result>(setup: () => JobHandler<Job, Result> | Promise<JobHandler<Job, Result>>): void {
  const port = parentPort;
  if (!port) throw new Error('serveJobs must run in a worker thread');
  const post = (message: FromWorker<Result>) => port.postMessage(message);
  const cancelled = new Set<number>();
  const queue: { id: number; job: Job }[] = [];
  let handler: JobHandler<Job, Result> | undefined;
  let running = false;

  // Messages are buffered by the port until this listener exists and while setup runs.
  port.on('message', (message: ToWorker<Job>) => {
    if (message.type === 'cancel') cancelled.add(message.id);
    else {
      queue.push({ id: message.id, job: message.job });
      void next();
    }
  });

  async function next(): Promise<void> {
    if (running || !handler) return;
    const item = queue.shift();
    if (!item) return;
    running = true;
    const { id, job } = item;
    const context: JobContext = {
      progress: (fraction) => post({ type: 'progress', id, fraction }),
      checkCancelled: () => {
        if (cancelled.has(id)) throw new JobCancelled();
      },
    };
    try {
      context.checkCancelled();
      const result = await handler(job, context);
      post({ type: 'done', id, result });
    } catch (error) {
      if (error instanceof JobCancelled) post({ type: 'cancelled', id });
      else post({ type: 'failed', id, error: serializeError(error) });
    } finally {
      cancelled.delete(id);
      running = false;
      void next();
    }
  }

  void (async () => {
    try {
      handler = await setup();
    } catch (error) {
      post({ type: 'fatal', error: serializeError(error) });
      port.close();
      process.exit(1); // ends this worker thread only
    }
    post({ type: 'ready' });
    void next();
  })();
}

function serializeError(error: unknown): SerializedError {
  if (error instanceof EngineError) return { message: error.message, code: error.code };
  return { message: error instanceof Error ? error.message : String(error) };
}
