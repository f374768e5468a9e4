// Audio fixtures of the server tests, made once per test process from real recordings with the real ffmpeg:
// goforward.raw (Debian pocketsphinx-testdata, "go forward ten meters") in several containers, plus files that
// must be refused (text named .wav, audio over the sync duration limit), and long readings to interrupt.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ffmpegPath } from '../media/ffmpeg.ts';

export const TESTDATA = '/usr/share/pocketsphinx/test/data';
export const GOFORWARD_RAW = join(TESTDATA, 'goforward.raw');
/** Word starts of goforward.raw as the issue states them (seconds). */
export const GOFORWARD_STARTS = [0.46, 0.64, 1.17, 1.53];

let dir: string | undefined;
const made = new Map<string, string>();

function ffmpeg(args: string[]): void {
  execFileSync(ffmpegPath, ['-hide_banner', '-loglevel', 'error', '-y', ...args], { stdio: 'pipe' });
}

/** goforward as `ext` (wav, mp3, ogg, m4a, flac, webm). */
export function goforward(ext: string): string {
  return fixture(`goforward.${ext}`, (path) =>
    ffmpeg(['-f', 's16le', '-ar', '16000', '-ac', '1', '-i', GOFORWARD_RAW, path]),
  );
}

/** Silence of `seconds` as a wav (8 kHz mono, small on disk). */
export function silence(seconds: number): string {
  return fixture(`silence-${seconds}.wav`, (path) =>
    ffmpeg(['-f', 'lavfi', '-i', `anullsrc=r=8000:cl=mono`, '-t', String(seconds), path]),
  );
}

/**
 * The LibriVox readings of pocketsphinx-testdata joined `times` times into one wav (≈ 25 s each time): a task long
 * enough to kill or stop its worker in the middle of.
 */
export function librivoxReadings(times: number): string {
  return fixture(`librivox-${times}.wav`, (path) => {
    const files = readFileSync(join(TESTDATA, 'librivox/fileids'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((id) => `file '${join(TESTDATA, 'librivox', `${id}.wav`)}'`);
    const list = `${path}.txt`;
    writeFileSync(
      list,
      Array.from({ length: times }, () => files)
        .flat()
        .join('\n'),
    );
    ffmpeg(['-f', 'concat', '-safe', '0', '-i', list, path]);
  });
}

/** The first `seconds` of the LibriVox readings as raw 16 kHz mono s16le PCM (what a stream client sends). */
export function librivoxPcm(seconds: number): Buffer {
  const path = fixture(`librivox-${seconds}s.raw`, (out) =>
    ffmpeg(['-i', librivoxReadings(1), '-t', String(seconds), '-f', 's16le', '-ar', '16000', '-ac', '1', out]),
  );
  return readFileSync(path);
}

/** A text file named .wav. */
export function textAsWav(): string {
  return fixture('notes.wav', (path) => writeFileSync(path, 'These are meeting notes, not audio.\n'.repeat(50)));
}

function fixture(name: string, make: (path: string) => void): string {
  dir ??= mkdtempSync(join(tmpdir(), 'scribe-audio-'));
  let path = made.get(name);
  if (!path) {
    path = join(dir, name);
    make(path);
    made.set(name, path);
  }
  return path;
}
