// Where a task's media lives while the task is unfinished: `<data dir>/tasks/<id>/` with the original medium and the
// decoded 16 kHz PCM. The folder is removed when the task reaches a final state (the transcript is in the database).
import { mkdir, rename, rm } from 'node:fs/promises';
import { extname, join } from 'node:path';

export function createTaskFiles(dataDir: string) {
  const dirOf = (id: string) => join(dataDir, 'tasks', id);
  return {
    originalPath: (id: string) => join(dirOf(id), 'original'),
    pcmPath: (id: string) => join(dirOf(id), 'audio.pcm'),
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
    async remove(id: string): Promise<void> {
      await rm(dirOf(id), { recursive: true, force: true });
    },
  };
}

export type TaskFiles = ReturnType<typeof createTaskFiles>;
