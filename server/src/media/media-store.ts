// Where the original medium of an unfinished transcription task is kept so that the process running its job can read
// it. Several processes on one PostgreSQL database each have their own data dir and never read each other's disk, so
// there the medium goes into the database as rows of about 1 MiB (`media_chunks`): written from the local file one
// chunk at a time and read back one chunk at a time into the reading process's own scratch file, so no side ever holds
// the whole file in memory. Plain rows rather than large objects: they need no lo_unlink bookkeeping, go away with a
// DELETE, and use the pool like every other query. A single-node SQLite server keeps the medium in its data dir only
// (the local store: nothing to copy, nothing to fetch).
import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import type { Database } from '../db/database.ts';
import { databaseKind } from '../db/database.ts';

/** Bytes per stored row: large enough that a file is few rows, small enough that one row is cheap to hold. */
export const CHUNK_BYTES = 1024 * 1024;

/** Bytes read per query when fetching (a part of a chunk, see chunksOf). */
const READ_SLICE_BYTES = 256 * 1024;

/**
 * Chunks whose task row does not exist are kept this long: intake stores the medium before it inserts the task row,
 * so a young chunk set without a task is an intake in progress, an old one is left by a process killed in between.
 */
export const ORPHAN_AGE_SECONDS = 60 * 60;

export interface MediaStore {
  /** True when every process reaches the stored media (then a process's local copy is only its scratch). */
  readonly shared: boolean;
  /** Stores the file as the task's medium, replacing what was stored for it; all or nothing. */
  put(taskId: string, localFile: string): Promise<void>;
  /** Writes the task's stored medium to `localFile` (complete or not at all); rejects when nothing is stored. */
  fetch(taskId: string, localFile: string): Promise<void>;
  remove(taskId: string): Promise<void>;
  /** Deletes the media of final tasks and of missing tasks older than ORPHAN_AGE_SECONDS; resolves with rows deleted. */
  sweep(): Promise<number>;
}

export class StoredMediaMissing extends Error {
  constructor(taskId: string) {
    super(`the media store holds no medium for task ${taskId}`);
  }
}

/** Single node: the medium stays where intake put it, in the data dir. */
export const localMediaStore: MediaStore = {
  shared: false,
  async put() {},
  async fetch(taskId) {
    throw new StoredMediaMissing(taskId);
  },
  async remove() {},
  async sweep() {
    return 0;
  },
};

/**
 * The database's media store on PostgreSQL (`media_chunks`); the local store on SQLite. `unfinishedStates` are the
 * task states whose media the sweep keeps: the job queue's, passed in by the app, since the queue sits above media.
 */
export function createMediaStore(db: Database, unfinishedStates: readonly string[]): MediaStore {
  if (databaseKind(db) !== 'postgres') return localMediaStore;

  /**
   * The stored bytes in order, read a slice of a chunk per query: with STORAGE EXTERNAL PostgreSQL reads only the
   * slice's part of the value, and the driver (which receives bytea as hex text and assembles every message in a
   * buffer it grows by doubling) handles a few hundred KiB at a time instead of megabytes, which keeps the garbage
   * it leaves between two collections, and so the process's memory, small.
   */
  async function* chunksOf(taskId: string): AsyncGenerator<Buffer> {
    for (let seq = 0; ; seq += 1) {
      for (let offset = 0; ; offset += READ_SLICE_BYTES) {
        const row = (await db('media_chunks')
          .where({ task_id: taskId, seq })
          .first(db.raw('substring(data from ? for ?) AS slice', [offset + 1, READ_SLICE_BYTES]))) as
          { slice: Buffer } | undefined;
        if (!row) {
          if (seq === 0) throw new StoredMediaMissing(taskId);
          return;
        }
        if (row.slice.length > 0) yield row.slice;
        if (row.slice.length < READ_SLICE_BYTES) break;
      }
    }
  }

  return {
    shared: true,
    async put(taskId, localFile) {
      // One transaction: a process killed half way leaves no truncated medium for another to fetch.
      const file = await open(localFile);
      try {
        await db.transaction(async (trx) => {
          await trx('media_chunks').where({ task_id: taskId }).delete();
          // The file is read a chunk at a time into one buffer, reused once the row holding it has been written.
          const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
          for (let seq = 0; ; seq += 1) {
            const { bytesRead } = await file.read(buffer, 0, CHUNK_BYTES, null);
            // An empty file is still a stored medium (fetch tells "empty" from "never stored" by the first row).
            if (bytesRead === 0 && seq > 0) break;
            await trx('media_chunks').insert({ task_id: taskId, seq, data: buffer.subarray(0, bytesRead) });
            if (bytesRead === 0) break;
          }
        });
      } finally {
        await file.close();
      }
    },
    async fetch(taskId, localFile) {
      // Written under another name and renamed: a process killed while fetching leaves no partial original that a
      // later job on this node would take for the whole file.
      const partial = `${localFile}.${randomUUID()}.part`;
      try {
        await pipeline(chunksOf(taskId), createWriteStream(partial));
        await rename(partial, localFile);
      } catch (error) {
        await rm(partial, { force: true });
        throw error;
      }
    },
    async remove(taskId) {
      await db('media_chunks').where({ task_id: taskId }).delete();
    },
    async sweep() {
      // Kept: chunks of an unfinished task, and young chunks whose task row is not there yet (intake in progress).
      const unfinished = unfinishedStates.map(() => '?').join(', ');
      const result = (await db.raw(
        `DELETE FROM media_chunks c
          WHERE NOT EXISTS (SELECT 1 FROM transcriptions t WHERE t.id = c.task_id AND t.status IN (${unfinished}))
            AND (EXISTS (SELECT 1 FROM transcriptions t WHERE t.id = c.task_id)
                 OR c.created_at < now() - make_interval(secs => ?))`,
        [...unfinishedStates, ORPHAN_AGE_SECONDS],
      )) as { rowCount: number | null };
      return result.rowCount ?? 0;
    },
  };
}
