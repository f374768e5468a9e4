// Test support for the diarization suites: real speech audio made at test time with espeak-ng (converted to 16 kHz
// mono s16le by the bundled static ffmpeg), WAV/raw loading for the pocketsphinx recordings, and word timings spread
// evenly over a known span of speech — good enough to check which speaker each stretch of audio is given to.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { DiarizationWord } from './diarize.ts';

const require = createRequire(import.meta.url);
const ffmpegPath = (require('@ffmpeg-installer/ffmpeg') as { path: string }).path;

export const SAMPLE_RATE = 16000;

export interface Voice {
  /** espeak-ng voice, e.g. `en-us+m3`. */
  voice: string;
  /** espeak-ng pitch, 0–99. */
  pitch: number;
}

/** A low male and a high female espeak-ng voice: clearly different speakers. */
export const LOW_MALE: Voice = { voice: 'en-us+m3', pitch: 20 };
export const HIGH_FEMALE: Voice = { voice: 'en-us+f4', pitch: 80 };

/** Speaks `text` with espeak-ng and returns 16 kHz mono PCM; `dir` holds the intermediate files. */
export function synthesize(dir: string, name: string, voice: Voice, text: string): Int16Array {
  const wav = join(dir, `${name}.wav`);
  const raw = join(dir, `${name}.raw`);
  run('espeak-ng', ['-v', voice.voice, '-p', String(voice.pitch), '-w', wav, text]);
  run(ffmpegPath, ['-nostdin', '-loglevel', 'error', '-y', '-i', wav, '-ar', '16000', '-ac', '1', '-f', 's16le', raw]);
  return loadRaw(raw);
}

function run(command: string, args: string[]): void {
  const result = spawnSync(command, args, { stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${command} failed (${result.status ?? result.signal}): ${result.stderr}`);
}

/** Headerless 16-bit little-endian PCM. */
export function loadRaw(path: string): Int16Array {
  const bytes = readFileSync(path);
  const pcm = new Int16Array(bytes.length >> 1);
  for (let i = 0; i < pcm.length; i++) pcm[i] = bytes.readInt16LE(2 * i);
  return pcm;
}

/** The samples of the `data` chunk of a 16 kHz mono 16-bit PCM WAV file (other formats are refused). */
export function loadWav(path: string): Int16Array {
  const bytes = readFileSync(path);
  if (bytes.toString('ascii', 0, 4) !== 'RIFF' || bytes.toString('ascii', 8, 12) !== 'WAVE') {
    throw new Error(`${path} is not a WAV file`);
  }
  let offset = 12;
  let format: { channels: number; rate: number; bits: number } | undefined;
  while (offset + 8 <= bytes.length) {
    const id = bytes.toString('ascii', offset, offset + 4);
    const size = bytes.readUInt32LE(offset + 4);
    const body = offset + 8;
    if (id === 'fmt ') {
      format = {
        channels: bytes.readUInt16LE(body + 2),
        rate: bytes.readUInt32LE(body + 4),
        bits: bytes.readUInt16LE(body + 14),
      };
    } else if (id === 'data') {
      if (!format || format.channels !== 1 || format.rate !== SAMPLE_RATE || format.bits !== 16) {
        throw new Error(`${path}: expected 16 kHz mono 16-bit PCM, got ${JSON.stringify(format)}`);
      }
      const end = Math.min(bytes.length, body + size);
      const pcm = new Int16Array((end - body) >> 1);
      for (let i = 0; i < pcm.length; i++) pcm[i] = bytes.readInt16LE(body + 2 * i);
      return pcm;
    }
    offset = body + size + (size & 1);
  }
  throw new Error(`${path} has no data chunk`);
}

/** Concatenates clips; returns the audio and the start time (s) of every clip. */
export function concat(clips: Int16Array[]): { pcm: Int16Array; starts: number[] } {
  const pcm = new Int16Array(clips.reduce((sum, clip) => sum + clip.length, 0));
  const starts: number[] = [];
  let offset = 0;
  for (const clip of clips) {
    starts.push(offset / SAMPLE_RATE);
    pcm.set(clip, offset);
    offset += clip.length;
  }
  return { pcm, starts };
}

/** First and last moment (s) where |sample| exceeds `level`: the spoken part of a synthesized clip. */
export function speechSpan(pcm: Int16Array, level = 300): { start: number; end: number } {
  let first = 0;
  while (first < pcm.length && Math.abs(pcm[first]!) <= level) first++;
  let last = pcm.length - 1;
  while (last > first && Math.abs(pcm[last]!) <= level) last--;
  return { start: first / SAMPLE_RATE, end: (last + 1) / SAMPLE_RATE };
}

/** The words of `text` spread evenly over [start, end) seconds, each with a small gap after it. */
export function evenWords(text: string, start: number, end: number): DiarizationWord[] {
  const tokens = text.split(/\s+/).filter(Boolean);
  const step = (end - start) / tokens.length;
  return tokens.map((word, i) => ({
    word,
    start: start + i * step,
    end: start + (i + 1) * step - Math.min(0.02, step / 4),
  }));
}
