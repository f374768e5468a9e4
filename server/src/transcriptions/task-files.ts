// Where a task's media lives while the task is unfinished: `<data dir>/tasks/<id>/` with the original medium and the
// decoded 16 kHz PCM, and — when several processes share one PostgreSQL database — the original in the media store
// too (media/media-store.ts), so that the process that runs the job, whichever it is, can fetch it into its own
// folder. The task row names the original by its file name in the folder (`media_path`), which is the same on every
// process; each process's folder is its own scratch. Everything is removed when the task reaches a final state (the
// transcript is in the database).
//
// The decode of a task's medium runs once: intake (or the download step) starts ffmpeg, which probes and decodes in
// the same run (media/ffmpeg.ts startDecode), and the job later takes that decode instead of starting another. Only
// this process knows of a decode in flight; a job resumed elsewhere (another server, a restart) decodes again, and
// a decode nobody takes is forgotten.
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { basename, extname, isAbsolute, join } from 'node:path';
import { probeMedia, startDecode, type DecodedPcm, type MediaInfo, type RunningDecode } from '../media/ffmpeg.ts';
import { localMediaStore, type MediaStore } from '../media/media-store.ts';
import { decodeBoundOf } from './decoded-length.ts';

/** A decode nobody took (its task was cancelled or taken by another process) is forgotten after this long. */
const UNCLAIMED_DECODE_MS = 10 * 60_000;

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

export interface TaskFilesOptions {
  /**
   * False in a process that runs no jobs (role `api`): its intake only probes (no decode that nobody here would
   * take), and once the original is in the shared store its copy here goes.
   */
  runsJobs?: boolean;
}

export function createTaskFiles(
  dataDir: string,
  media: MediaStore = localMediaStore,
  { runsJobs = true }: TaskFilesOptions = {},
) {
  const dirOf = (id: string) => join(dataDir, 'tasks', id);
  const pcmPath = (id: string) => join(dirOf(id), 'audio.pcm');
  // A row written before media_path held a file name has an absolute path: on a single node that file is the
  // original; with a shared store it may be another process's, so only its name counts.
  const localPathOf = (id: string, mediaPath: string) =>
    !media.shared && isAbsolute(mediaPath) ? mediaPath : join(dirOf(id), basename(mediaPath));
  /** Decodes in flight, each with the duration limit it was started for (it stops a little past it). */
  const decodes = new Map<string, { running: RunningDecode; timer: NodeJS.Timeout; maxSeconds: number }>();
  /** Folders being removed because their decode was never taken; a job for the task waits for the removal. */
  const clearing = new Map<string, Promise<void>>();

  /** Takes the decode in flight for a task out of the map (its timer stopped), if there is one. */
  function take(id: string): { running: RunningDecode; maxSeconds: number } | undefined {
    const entry = decodes.get(id);
    if (!entry) return undefined;
    decodes.delete(id);
    clearTimeout(entry.timer);
    return entry;
  }

  async function newDecode(id: string, mediaPath: string, maxSeconds: number): Promise<RunningDecode> {
    await mkdir(dirOf(id), { recursive: true });
    // A PCM file left by an earlier run (a restart on one node) goes first: the engine starts reading the file as
    // soon as it exists, and must only ever see this run's output.
    await rm(pcmPath(id), { force: true });
    return startDecode(mediaPath, pcmPath(id), { maxOutputSeconds: decodeBoundOf(maxSeconds) });
  }

  function forget(id: string, reason: string): void {
    take(id)?.running.abort(new Error(reason));
  }

  /** Removes this process's folder of the task (the original must be in the shared store, or not needed any more). */
  function clearLocal(id: string): Promise<void> {
    const removal = rm(dirOf(id), { recursive: true, force: true }).finally(() => {
      if (clearing.get(id) === removal) clearing.delete(id);
    });
    clearing.set(id, removal);
    return removal;
  }

  /**
   * A decode nobody took: its job runs in another process, or the task was cancelled there. With a shared store
   * this process's copy is only scratch and goes too; on a single node the folder is the task's only copy and stays.
   */
  function abandon(id: string): void {
    forget(id, 'decode not taken');
    if (media.shared) void clearLocal(id).catch(() => undefined);
  }

  return {
    /** Where originals are kept for every process (its sweep runs with the background work). */
    media,
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
     * Makes the task's original (a file in its folder) readable by whichever process runs the job: stored in the
     * shared media store, or left in place on a single node. Resolves with the task row's `media_path`: the file's
     * name in the task's folder, the same on every process.
     */
    async share(id: string, mediaPath: string): Promise<string> {
      await media.put(id, mediaPath);
      if (!runsJobs && media.shared) await clearLocal(id);
      return basename(mediaPath);
    },
    /**
     * Starts decoding the task's medium into its PCM file and resolves with the probe as soon as ffmpeg has described
     * the input; the decode goes on for `decode` to take, and stops a little past `maxSeconds` (the task's limit;
     * without one it runs to the end).
     * A rejected probe leaves nothing running. In a process that runs no jobs it only probes.
     */
    async probeAndDecode(
      id: string,
      mediaPath: string,
      { maxSeconds = Infinity }: { maxSeconds?: number } = {},
    ): Promise<MediaInfo> {
      if (!runsJobs) return probeMedia(mediaPath);
      forget(id, 'superseded by a new decode');
      const running = await newDecode(id, mediaPath, maxSeconds);
      const timer = setTimeout(() => abandon(id), UNCLAIMED_DECODE_MS);
      timer.unref();
      decodes.set(id, { running, timer, maxSeconds });
      try {
        return await running.probed;
      } catch (error) {
        forget(id, 'probe failed');
        throw error;
      }
    },
    /**
     * The task's PCM: the decode this process started for it if there is one, or a new one of the original named by
     * `mediaPath` (fetched from the shared store first when this process has no copy). Aborting `signal` kills
     * ffmpeg and rejects with the signal's reason. Resolves with the limit the decode ran under: the one intake gave
     * for a decode it started here, else `fallbackMaxSeconds` (this process does not know the limit of a task that
     * was accepted elsewhere or before a restart; the caller passes the largest any route of the task allows).
     */
    async decode(
      id: string,
      mediaPath: string,
      signal: AbortSignal,
      fallbackMaxSeconds = Infinity,
    ): Promise<DecodedPcm & { maxSeconds: number }> {
      const started = take(id);
      let running = started?.running;
      const maxSeconds = started?.maxSeconds ?? fallbackMaxSeconds;
      if (!running) {
        await clearing.get(id);
        const local = localPathOf(id, mediaPath);
        if (media.shared && !(await exists(local))) {
          await mkdir(dirOf(id), { recursive: true });
          await media.fetch(id, local);
        }
        running = await newDecode(id, local, maxSeconds);
      }
      const decoding = running;
      if (signal.aborted) decoding.abort(signal.reason);
      const onAbort = () => decoding.abort(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
      try {
        return { ...(await decoding.decoded), maxSeconds };
      } finally {
        signal.removeEventListener('abort', onAbort);
      }
    },
    /**
     * This process stops working on a task that is still unfinished (its lease was lost or handed back): the job
     * resumes here or elsewhere. With a shared store the folder is scratch and goes (a resumed job fetches the
     * original again); on a single node it is the task's only copy and stays.
     */
    async leave(id: string): Promise<void> {
      forget(id, 'task left by this process');
      if (media.shared) await clearLocal(id);
    },
    /** The task ended: its folder here and its stored medium go. */
    async remove(id: string): Promise<void> {
      forget(id, 'task files removed');
      await clearLocal(id);
      await media.remove(id);
    },
  };
}

export type TaskFiles = ReturnType<typeof createTaskFiles>;
