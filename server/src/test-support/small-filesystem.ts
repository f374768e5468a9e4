// A small filesystem of its own for a test of a full disk: a tmpfs of `megabytes` mounted on a fresh directory when
// this process may mount (root, as on CI's machine). Where it may not, the directory is an ordinary one on the
// machine's disk and `emulatedMinFreeMb` gives the free-space threshold under which the server sees only `megabytes`
// free: the server's own free-space checks then behave as on the small filesystem (an actual ENOSPC needs the mount).
import { execFileSync } from 'node:child_process';
import { statfsSync, mkdtempSync, rmSync, openSync, writeSync, closeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface SmallFilesystem {
  dir: string;
  /** True when `dir` is a tmpfs of its own (writes there can really fill it). */
  mounted: boolean;
  /** SCRIBE_MIN_FREE_DISK_MB to give the server: the test's own threshold on a mount, the emulation otherwise. */
  minFreeMb(testThresholdMb: number): number;
  freeBytes(): number;
  /** Writes a ballast file until `leaveBytes` are free (0: until the filesystem is full); returns its size. */
  fill(leaveBytes: number): number;
  /** Removes the ballast. */
  empty(): void;
  remove(): void;
}

export function createSmallFilesystem(megabytes: number): SmallFilesystem {
  const dir = mkdtempSync(join(tmpdir(), 'scribe-small-fs-'));
  let mounted = false;
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${megabytes}m`, 'tmpfs', dir], { stdio: 'ignore' });
    mounted = true;
  } catch {
    mounted = false;
  }
  const free = () => {
    const stats = statfsSync(dir);
    return Number(stats.bavail) * Number(stats.bsize);
  };
  const emulatedBase = mounted ? 0 : free() - megabytes * 1024 * 1024;
  const ballast = join(dir, 'ballast');
  return {
    dir,
    mounted,
    minFreeMb: (threshold) => (mounted ? threshold : Math.floor(emulatedBase / (1024 * 1024)) + threshold),
    freeBytes: () => free() - emulatedBase,
    fill(leaveBytes) {
      const fd = openSync(ballast, 'a');
      const chunk = Buffer.alloc(256 * 1024);
      let written = 0;
      try {
        while (free() - emulatedBase > leaveBytes) {
          const size = Math.min(chunk.length, Math.max(4096, free() - emulatedBase - leaveBytes));
          written += writeSync(fd, chunk, 0, size);
        }
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
      } finally {
        closeSync(fd);
      }
      return written;
    },
    empty: () => rmSync(ballast, { force: true }),
    remove() {
      if (mounted) execFileSync('umount', ['-l', dir], { stdio: 'ignore' });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
