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
