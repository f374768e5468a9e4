// Free space of the data dir's filesystem, where uploads, downloads and the SQLite database are written. An upload
// is accepted only when it leaves the threshold free (SCRIBE_MIN_FREE_DISK_MB), so uploads that fit succeed while
// others are refused with 503 `insufficient_storage`, instead of all of them failing half-written on a full disk.
import { statfs } from 'node:fs/promises';

/** Bytes an unprivileged process may still write on the filesystem holding `dir`. */
export async function freeBytes(dir: string): Promise<number> {
  const stats = await statfs(dir);
  return Number(stats.bavail) * Number(stats.bsize);
}

export interface SpaceCheck {
  /**
   * Sets `incomingBytes` aside for a write about to start when they fit beside the writes already set aside with
   * `minFreeBytes` left free; resolves with the function that gives them back once the write has ended (its bytes are
   * then in the filesystem's own count), or undefined when they do not fit.
   */
  hold(incomingBytes: number): Promise<(() => void) | undefined>;
  /** Whether the threshold is kept now (false also when the filesystem cannot be read). */
  healthy(): Promise<boolean>;
}

export function createSpaceCheck(dir: string, minFreeBytes: number): SpaceCheck {
  // Bytes of uploads accepted but not yet written: concurrent uploads are each checked against what the others will
  // still take, so that of four 9.5 MB uploads into 20 MB two are accepted and complete rather than four failing.
  let held = 0;
  const free = () => freeBytes(dir).catch(() => -1);
  return {
    async hold(incomingBytes) {
      const available = await free();
      if (available < 0 || available - held - incomingBytes < minFreeBytes) return undefined;
      held += incomingBytes;
      let given = false;
      return () => {
        if (given) return;
        given = true;
        held -= incomingBytes;
      };
    },
    healthy: async () => {
      const available = await free();
      return available >= 0 && available - held >= minFreeBytes;
    },
  };
}
