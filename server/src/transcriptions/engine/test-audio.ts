// Real recordings for engine tests and benchmarks, from Debian's pocketsphinx-testdata: `goforward.raw` (one speaker,
// "go forward ten meters", raw 16 kHz mono s16le, with reference word starts) and five LibriVox readings of Sense and
// Sensibility with their transcripts (WAV; converted with the bundled static ffmpeg if one were not 16 kHz mono 16-bit).
// Also builds longer files from them: readings joined by pauses of low noise, written as raw PCM for the engines.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { SAMPLE_RATE } from './pcm-file.ts';
import { parseWav } from './wav.ts';

export const TEST_DATA_DIR = '/usr/share/pocketsphinx/test/data';

export const GO_FORWARD = {
  path: join(TEST_DATA_DIR, 'goforward.raw'),
  text: 'go forward ten meters',
  /** Word starts (seconds) from PocketSphinx's own alignment of this file. */
  starts: [0.46, 0.64, 1.17, 1.53],
};

export interface Recording {
  id: string;
  /** Reference transcript, lower case without punctuation. */
  transcript: string;
  pcm: Int16Array;
  seconds: number;
}

/** The LibriVox readings in `librivox/fileids` order, as 16 kHz mono samples. */
export function librivoxRecordings(): Recording[] {
  const dir = join(TEST_DATA_DIR, 'librivox');
  const transcripts = new Map<string, string>();
  for (const line of readFileSync(join(dir, 'transcription'), 'utf8').split('\n')) {
    const match = /^<s> (.*) <\/s> \((.+)\)$/.exec(line.trim());
    if (match) transcripts.set(match[2]!, match[1]!);
  }
  const ids = readFileSync(join(dir, 'fileids'), 'utf8').split('\n').filter(Boolean);
  return ids.map((id) => {
    const transcript = transcripts.get(id);
    if (transcript === undefined) throw new Error(`no transcript for ${id}`);
    const pcm = readAsPcm(join(dir, `${id}.wav`));
    return { id, transcript, pcm, seconds: pcm.length / SAMPLE_RATE };
  });
}

/** A WAV file's samples if it is already 16 kHz mono 16-bit PCM, else converted by ffmpeg. */
export function readAsPcm(path: string): Int16Array {
  const wav = parseWav(readFileSync(path));
  if (wav.format === 1 && wav.channels === 1 && wav.sampleRate === SAMPLE_RATE && wav.bitsPerSample === 16) {
    return samplesOf(wav.data);
  }
  const ffmpeg = (createRequire(import.meta.url)('@ffmpeg-installer/ffmpeg') as { path: string }).path;
  const converted = spawnSync(ffmpeg, ['-v', 'error', '-i', path, '-ac', '1', '-ar', '16000', '-f', 's16le', '-'], {
    maxBuffer: 1 << 30,
  });
  if (converted.status !== 0) throw new Error(`ffmpeg could not convert ${path}: ${converted.stderr}`);
  return samplesOf(converted.stdout);
}

/** Samples of s16le bytes, copied into their own aligned buffer. */
export function samplesOf(bytes: Uint8Array): Int16Array {
  const samples = new Int16Array(Math.floor(bytes.length / 2));
  new Uint8Array(samples.buffer).set(bytes.subarray(0, samples.length * 2));
  return samples;
}

/** Low, deterministic white noise (RMS ≈ `rms`), like a quiet room between sentences. */
export function noise(seconds: number, rms = 60, seed = 1): Int16Array {
  const out = new Int16Array(Math.round(seconds * SAMPLE_RATE));
  let state = seed >>> 0 || 1;
  const next = () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
  // Sum of 4 uniforms ≈ Gaussian with variance 4/12 → scale to the wanted RMS.
  const scale = rms / Math.sqrt(4 / 12);
  for (let i = 0; i < out.length; i++) out[i] = Math.round((next() + next() + next() + next() - 2) * scale);
  return out;
}

/** parts[0], pause[0], parts[1], pause[1], … (pauses in seconds, of low noise); returns the samples and where each part starts. */
export function joinWithPauses(parts: readonly Int16Array[], pauses: readonly number[]) {
  const pieces: Int16Array[] = [];
  const starts: number[] = [];
  let at = 0;
  parts.forEach((part, i) => {
    starts.push(at);
    pieces.push(part);
    at += part.length;
    const pause = pauses[i];
    if (pause !== undefined && pause > 0 && i < parts.length - 1) {
      const gap = noise(pause, 60, i + 1);
      pieces.push(gap);
      at += gap.length;
    }
  });
  const pcm = new Int16Array(at);
  let offset = 0;
  for (const piece of pieces) {
    pcm.set(piece, offset);
    offset += piece.length;
  }
  return { pcm, starts };
}

export async function writePcm(path: string, pcm: Int16Array): Promise<string> {
  await writeFile(path, new Uint8Array(pcm.buffer, pcm.byteOffset, pcm.byteLength));
  return path;
}
