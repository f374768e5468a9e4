// Starts a worker thread on a module of this code base. Under `node --import tsx`, Node 20 passes `--import tsx` to
// worker threads (execArgv is inherited) but the worker's entry module is still resolved without the tsx hooks —
// `new Worker(new URL('./x.ts', import.meta.url))` fails with ERR_UNKNOWN_FILE_EXTENSION, and so does an explicit
// `execArgv: ['--import', 'tsx']` (measured on 20.20). So a `.ts` entry is started through a one-line bootstrap that
// registers tsx's ESM hooks in the worker (tsx/esm/api register()) and then imports it.
import { Worker } from 'node:worker_threads';

export function startWorker(url: URL, workerData: unknown): Worker {
  if (!url.pathname.endsWith('.ts')) return new Worker(url, { workerData });
  const tsx = import.meta.resolve('tsx/esm/api');
  const bootstrap =
    `import(${JSON.stringify(tsx)})` +
    `.then((tsx) => { tsx.register(); return import(${JSON.stringify(url.href)}); })`;
  return new Worker(bootstrap, { eval: true, workerData });
}
