// The audio the suite uploads: Debian's pocketsphinx test recording goforward.raw ("go forward ten meters",
// 16 kHz mono 16-bit PCM) wrapped in a WAV header, written once to a temp folder that stays after the run so the
// "Reproduce with:" commands keep working. Without the recording, one second of a 440 Hz tone is used instead.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const GOFORWARD_RAW = '/usr/share/pocketsphinx/test/data/goforward.raw';
const SAMPLE_RATE = 16_000;

export interface AudioFixture {
  path: string;
  filename: string;
  contentType: string;
  /** Raw PCM (s16le mono at sampleRate), for the stream. */
  pcm: Buffer;
  sampleRate: number;
  durationSeconds: number;
}

export function wavOf(pcm: Buffer, sampleRate: number): Buffer {
  const header = Buffer.alloc(44);
  header.write('RIFF', 0);
  header.writeUInt32LE(36 + pcm.length, 4);
  header.write('WAVE', 8);
  header.write('fmt ', 12);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // mono
  header.writeUInt32LE(sampleRate, 24);
  header.writeUInt32LE(sampleRate * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36);
  header.writeUInt32LE(pcm.length, 40);
  return Buffer.concat([header, pcm]);
}

function tone(seconds: number): Buffer {
  const pcm = Buffer.alloc(SAMPLE_RATE * seconds * 2);
  for (let i = 0; i < SAMPLE_RATE * seconds; i++)
    pcm.writeInt16LE(Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / SAMPLE_RATE)), i * 2);
  return pcm;
}

export function loadAudio(): AudioFixture {
  const pcm = existsSync(GOFORWARD_RAW) ? readFileSync(GOFORWARD_RAW) : tone(1);
  const dir = join(tmpdir(), 'scribe-conformance');
  mkdirSync(dir, { recursive: true });
  const path = join(dir, 'goforward.wav');
  writeFileSync(path, wavOf(pcm, SAMPLE_RATE));
  return {
    path,
    filename: 'goforward.wav',
    contentType: 'audio/wav',
    pcm,
    sampleRate: SAMPLE_RATE,
    durationSeconds: pcm.length / (2 * SAMPLE_RATE),
  };
}
