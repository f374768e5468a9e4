// Waiting for a transcription: polls its status until a final state (completed, failed, cancelled), reporting each
// change of status or progress, and waiting out a 429's Retry-After instead of failing.
import type { Client } from '../../generated/client/client/index.ts';
import { getTranscriptionStatus } from '../../generated/client/sdk.gen.ts';
import type { Transcription, TranscriptionStatus } from '../../generated/client/types.gen.ts';
import { ScribeApiError } from './api-error.ts';

export interface WaitForTranscriptionOptions {
  /** Called with the task whenever its status or progress changed (progress is the fraction of audio decoded). */
  onProgress?: (task: Transcription) => void;
  /** Milliseconds between two polls (default 500). */
  intervalMs?: number;
  /** Gives up with an error after this many milliseconds (default: never). */
  timeoutMs?: number;
  signal?: AbortSignal;
}

const FINAL: readonly TranscriptionStatus[] = ['completed', 'failed', 'cancelled'];

const delay = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });

/** Resolves with the task in its final state (check `status`: a failed task carries `error`). */
export async function waitForTranscription(
  client: Client,
  id: string,
  options: WaitForTranscriptionOptions = {},
): Promise<Transcription> {
  const deadline = options.timeoutMs === undefined ? Infinity : Date.now() + options.timeoutMs;
  let last: string | undefined;
  for (;;) {
    const { data, error, response } = await getTranscriptionStatus({ client, path: { id }, signal: options.signal });
    if (data) {
      const task = data.data;
      const seen = `${task.status} ${task.progress}`;
      if (seen !== last) options.onProgress?.(task);
      last = seen;
      if (FINAL.includes(task.status)) return task;
    } else if (response?.status === 429) {
      await delay(Number(response.headers.get('Retry-After') ?? '1') * 1000, options.signal);
      continue;
    } else {
      throw ScribeApiError.from(response, error);
    }
    if (Date.now() >= deadline) throw new Error(`transcription ${id} is still ${last} after ${options.timeoutMs} ms`);
    await delay(options.intervalMs ?? 500, options.signal);
  }
}
