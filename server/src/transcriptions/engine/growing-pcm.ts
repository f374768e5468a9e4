// Reading a PCM file that is still being written (by ffmpeg, in another process): the worker opens it once it exists
// and asks, each time it has read everything there is, for more. How much is there comes from the file's size (whole
// samples only: ffmpeg may have written half of one); whether more will come comes from the shared writing cell
// (pcm-writing.ts). There is no notification of growth to wait on, so the wait is a short poll: it costs a stat every
// POLL_MS while the decode runs, which is a few dozen for a typical file (ffmpeg decodes hundreds of times faster
// than the engine recognises).
import { open, type FileHandle } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { EngineError } from './engine.ts';
import { BYTES_PER_SAMPLE } from './pcm-file.ts';
import { writingState } from './pcm-writing.ts';

const POLL_MS = 20;

export interface Growth {
  /** Whole samples in the file now. */
  samples: number;
  /** The writer has finished: `samples` is the file's final length. */
  complete: boolean;
}

function decodeFailed(pcmPath: string): EngineError {
  return new EngineError('invalid_audio', `the PCM file ${pcmPath} was not completed: its decode failed`);
}

/**
 * Opens the file once the writer has created it. `between` runs while waiting (it throws to stop: a cancelled job).
 * Rejects with `invalid_audio` if the decode fails first, or if it completes without a file.
 */
export async function openGrowingPcm(
  pcmPath: string,
  writing: SharedArrayBuffer,
  between: () => void,
): Promise<FileHandle> {
  for (;;) {
    const state = writingState(writing);
    if (state === 'failed') throw decodeFailed(pcmPath);
    try {
      return await open(pcmPath, 'r');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || state === 'complete') {
        const reason = error instanceof Error ? error.message : String(error);
        throw new EngineError('invalid_audio', `cannot read the PCM file ${pcmPath}: ${reason}`, { cause: error });
      }
    }
    between();
    await sleep(POLL_MS);
    between();
  }
}

/**
 * Waits until the file holds more than `have` whole samples or is complete. The state is read before the size, so a
 * `complete` answer comes with the final size. Rejects with `invalid_audio` when the decode failed.
 */
export async function waitForGrowth(
  file: FileHandle,
  pcmPath: string,
  writing: SharedArrayBuffer,
  have: number,
  between: () => void,
): Promise<Growth> {
  for (;;) {
    const state = writingState(writing);
    if (state === 'failed') throw decodeFailed(pcmPath);
    const samples = Math.floor((await file.stat()).size / BYTES_PER_SAMPLE);
    if (state === 'complete' || samples > have) return { samples, complete: state === 'complete' };
    between();
    await sleep(POLL_MS);
    between();
  }
}
