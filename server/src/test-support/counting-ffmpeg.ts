// The real ffmpeg behind a wrapper that counts its runs, for tests of how often the server starts ffmpeg. The server
// reads SCRIBE_FFMPEG_PATH when media/ffmpeg.ts is first loaded, so call this before importing anything that loads it
// (then import the modules under test dynamically).
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

/** The ffmpeg binary itself (for the test's own, uncounted runs). */
export const realFfmpeg = (createRequire(import.meta.url)('@ffmpeg-installer/ffmpeg') as { path: string }).path;

/** Installs the wrapper in `dir` as SCRIBE_FFMPEG_PATH; returns the number of ffmpeg runs so far. */
export function countFfmpegRuns(dir: string): () => number {
  const runs = join(dir, 'runs.log');
  const wrapper = join(dir, 'ffmpeg');
  writeFileSync(wrapper, `#!/bin/sh\necho run >> "${runs}"\nexec "${realFfmpeg}" "$@"\n`);
  chmodSync(wrapper, 0o755);
  process.env.SCRIBE_FFMPEG_PATH = wrapper;
  return () => (existsSync(runs) ? readFileSync(runs, 'utf8').split('\n').filter(Boolean).length : 0);
}

/**
 * Installs, in `dir`, ffmpeg paced at the input's own rate (`-re`: a 17 s file takes 17 s to decode) as
 * SCRIBE_FFMPEG_PATH, recording each run's process id: a decode that is still running while a test looks at it.
 * Returns the process id of the latest run.
 */
export function pacedFfmpeg(dir: string): () => number {
  const pids = join(dir, 'ffmpeg.pids');
  const wrapper = join(dir, 'ffmpeg');
  writeFileSync(wrapper, `#!/bin/sh\necho $$ >> "${pids}"\nexec "${realFfmpeg}" -re "$@"\n`);
  chmodSync(wrapper, 0o755);
  process.env.SCRIBE_FFMPEG_PATH = wrapper;
  return () => Number(readFileSync(pids, 'utf8').trim().split('\n').pop());
}

/** Whether a process of this id is still running. */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
