// Where a task's media lives while the task is unfinished: `<data dir>/tasks/<id>/` with the original medium and the
// decoded 16 kHz PCM. The folder is removed when the task reaches a final state (the transcript is in the database).
//
// The decode of a task's medium runs once: intake (or the download step) starts ffmpeg, which probes and decodes in
// the same run (media/ffmpeg.ts startDecode), and the job later takes that decode instead of starting another. Only
// this process knows of a decode in flight; a job resumed elsewhere (another server, a restart) decodes again.
import { mkdir, rename, rm } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { startDecode, type DecodedPcm, type MediaInfo, type RunningDecode } from '../media/ffmpeg.ts';

/** A decode nobody took (its task was cancelled or taken by another process) is forgotten after this long. */
const UNCLAIMED_DECODE_MS = 10 * 60_000;

export function createTaskFiles(dataDir: string) {
  const dirOf = (id: string) => join(dataDir, 'tasks', id);
  const pcmPath = (id: string) => join(dirOf(id), 'audio.pcm');
  const decodes = new Map<string, { running: RunningDecode; timer: NodeJS.Timeout }>();

  /** Takes the decode in flight for a task out of the map (its timer stopped), if there is one. */
  function take(id: string): RunningDecode | undefined {
    const entry = decodes.get(id);
    if (!entry) return undefined;
    decodes.delete(id);
    clearTimeout(entry.timer);
    return entry.running;
  }

  async function newDecode(id: string, mediaPath: string): Promise<RunningDecode> {
    await mkdir(dirOf(id), { recursive: true });
    return startDecode(mediaPath, pcmPath(id));
  }

  function forget(id: string, reason: string): void {
    take(id)?.abort(new Error(reason));
  }

  return {
    originalPath: (id: string) => join(dirOf(id), 'original'),
    pcmPath,
    async prepare(id: string): Promise<void> {
      await mkdir(dirOf(id), { recursive: true });
    },
    /** Moves an uploaded file into the task's folder (same file system: the data dir holds both). */
    async adoptUpload(id: string, uploadPath: string): Promise<string> {
      await mkdir(dirOf(id), { recursive: true });
      // The extension (kept by the upload reader) is a hint for ffmpeg's demuxer.
      const target = join(dirOf(id), `original${extname(uploadPath)}`);
      await rename(uploadPath, target);
      return target;
    },
    /**
     * Starts decoding the task's medium into its PCM file and resolves with the probe as soon as ffmpeg has described
     * the input; the decode goes on for `decode` to take. A rejected probe leaves nothing running.
     */
    async probeAndDecode(id: string, mediaPath: string): Promise<MediaInfo> {
      forget(id, 'superseded by a new decode');
      const running = await newDecode(id, mediaPath);
      const timer = setTimeout(() => forget(id, 'decode not taken'), UNCLAIMED_DECODE_MS);
      timer.unref();
      decodes.set(id, { running, timer });
      try {
        return await running.probed;
      } catch (error) {
        forget(id, 'probe failed');
        throw error;
      }
    },
    /**
     * The task's PCM: the decode this process started for it if there is one, or a new one. Aborting `signal` kills
     * ffmpeg and rejects with the signal's reason.
     */
    async decode(id: string, mediaPath: string, signal: AbortSignal): Promise<DecodedPcm> {
      const running = take(id) ?? (await newDecode(id, mediaPath));
      if (signal.aborted) running.abort(signal.reason);
      const onAbort = () => running.abort(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
      try {
        return await running.decoded;
      } finally {
        signal.removeEventListener('abort', onAbort);
      }
    },
    async remove(id: string): Promise<void> {
      forget(id, 'task files removed');
      await rm(dirOf(id), { recursive: true, force: true });
    },
  };
}

export type TaskFiles = ReturnType<typeof createTaskFiles>;
