// The messages between a WorkerPool and its worker threads, and the worker side of them (`serveJobs`): the worker
// sets itself up once (e.g. loads a model), says `ready` (or `fatal` and exits), then runs the jobs it is sent one at a
// time, reporting progress, the result or an error, and stops a job when asked to cancel it — at the next point the
// job itself checks (`context.checkCancelled()`), since synchronous native work cannot be interrupted. On `shutdown`
// it stops the current job the same way, disposes of what setup acquired and exits.
import { parentPort } from 'node:worker_threads';
import { EngineError, type EngineErrorCode } from './engine.ts';

export interface SerializedError {
  message: string;
  code?: EngineErrorCode;
}

export type ToWorker<Job> =
  | { type: 'run'; id: number; job: Job }
  | { type: 'cancel'; id: number }
  /** Finish (or stop) the current job, release the resource and exit. */
  | { type: 'shutdown' };

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

export interface JobServer<Job, Result> {
  run(job: Job, context: JobContext): Promise<Result>;
  /** Releases what setup acquired (native memory is not freed when a thread ends). */
  dispose?(): void;
}

/** Worker entry: `setup` runs once; its server then runs every job this thread is sent, until shutdown. */
export function serveJobs<Job, Result>(setup: () => JobServer<Job, Result> | Promise<JobServer<Job, Result>>): void {
  const port = parentPort;
  if (!port) throw new Error('serveJobs must run in a worker thread');
  const post = (message: FromWorker<Result>) => port.postMessage(message);
  const cancelled = new Set<number>();
  const queue: { id: number; job: Job }[] = [];
  let server: JobServer<Job, Result> | undefined;
  let running: number | undefined;
  let shuttingDown = false;

  // Messages are buffered by the port until this listener exists and while setup runs.
  port.on('message', (message: ToWorker<Job>) => {
    if (message.type === 'cancel') cancelled.add(message.id);
    else if (message.type === 'shutdown') {
      shuttingDown = true;
      queue.length = 0;
      if (running !== undefined) cancelled.add(running);
      else if (server) stop();
    } else {
      queue.push({ id: message.id, job: message.job });
      void next();
    }
  });

  function stop(): void {
    server?.dispose?.();
    server = undefined;
    port!.close(); // nothing left to keep the thread alive: it exits
  }

  async function next(): Promise<void> {
    if (running !== undefined || !server) return;
    if (shuttingDown) return stop();
    const item = queue.shift();
    if (!item) return;
    const { id, job } = item;
    running = id;
    const context: JobContext = {
      progress: (fraction) => post({ type: 'progress', id, fraction }),
      checkCancelled: () => {
        if (cancelled.has(id)) throw new JobCancelled();
      },
    };
    try {
      context.checkCancelled();
      const result = await server.run(job, context);
      post({ type: 'done', id, result });
    } catch (error) {
      if (error instanceof JobCancelled) post({ type: 'cancelled', id });
      else post({ type: 'failed', id, error: serializeError(error) });
    } finally {
      cancelled.delete(id);
      running = undefined;
      void next();
    }
  }

  void (async () => {
    try {
      server = await setup();
    } catch (error) {
      post({ type: 'fatal', error: serializeError(error) });
      port.close(); // the thread exits once the message is out
      return;
    }
    post({ type: 'ready' });
    void next();
  })();
}

function serializeError(error: unknown): SerializedError {
  if (error instanceof EngineError) return { message: error.message, code: error.code };
  return { message: error instanceof Error ? error.message : String(error) };
}
