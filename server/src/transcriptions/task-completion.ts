// Waiting inside a request for a task's final state (the OpenAI endpoint answers with the transcript itself). The task
// is run by the durable job runner of whichever process claims it — this one or another sharing the database — so
// the one signal every process sees is the task row, and it is read until it is final. The pause between reads
// grows with the time already waited (100 ms at first, 1 s at most): a short file is answered within a fraction of
// its processing time and an hour-long one costs one cheap query a second. There is no time limit: the task always
// ends (the runner's leases and MAX_ATTEMPTS guarantee a final state), and the caller asked to wait for it.
import { setTimeout as sleep } from 'node:timers/promises';
import { UNFINISHED, type JobQueue, type JobRow } from './jobs.ts';

export interface WaitOptions {
  /** First pause between reads, ms. */
  minIntervalMs?: number;
  /** Longest pause between reads, ms. */
  maxIntervalMs?: number;
}

const unfinished = new Set<string>(UNFINISHED);

function isFinal(status: JobRow['status']): boolean {
  return !unfinished.has(status);
}

/** The task's row once it is `completed`, `failed` or `cancelled`. */
export async function waitForFinal(
  jobs: Pick<JobQueue, 'get'>,
  id: string,
  options: WaitOptions = {},
): Promise<JobRow> {
  const minMs = options.minIntervalMs ?? 100;
  const maxMs = options.maxIntervalMs ?? 1000;
  const started = Date.now();
  for (;;) {
    const row = await jobs.get(id);
    // Task rows are never deleted, so a missing one is a server fault, not something to wait out.
    if (!row) throw new Error(`task ${id} disappeared while its request waited for it`);
    if (isFinal(row.status)) return row;
    await sleep(Math.min(maxMs, minMs + (Date.now() - started) / 20));
  }
}
