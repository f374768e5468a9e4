// Audio for `stream`: PCM s16le mono as the protocol sends it. A WAV file with 16-bit PCM is read directly (channels
// averaged to mono); `.raw`/`.pcm` is taken as s16le mono at --sample-rate; anything else is decoded by an `ffmpeg`
// found on the PATH, since the client package ships no decoder.
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { CliError } from './cli-error.ts';

export interface PcmAudio {
  pcm: Uint8Array;
  sampleRate: number;
}

function chunkOf(wav: Buffer, id: string): { offset: number; size: number } | undefined {
  for (let offset = 12; offset + 8 <= wav.length;) {
    const size = wav.readUInt32LE(offset + 4);
    if (wav.toString('ascii', offset, offset + 4) === id) return { offset: offset + 8, size };
    offset += 8 + size + (size % 2);
  }
  return undefined;
}

export function pcmOfWav(wav: Buffer, file: string): PcmAudio {
  const format = chunkOf(wav, 'fmt ');
  const data = chunkOf(wav, 'data');
  if (!format || !data) throw new CliError(`${file}: not a WAV file with fmt and data chunks`);
  const encoding = wav.readUInt16LE(format.offset);
  const channels = wav.readUInt16LE(format.offset + 2);
  const sampleRate = wav.readUInt32LE(format.offset + 4);
  const bits = wav.readUInt16LE(format.offset + 14);
  if ((encoding !== 1 && encoding !== 0xfffe) || bits !== 16)
    throw new CliError(`${file}: only 16-bit PCM WAV is read directly (install ffmpeg for other encodings)`);
  const samples = Math.floor(Math.min(data.size, wav.length - data.offset) / (2 * channels));
  const pcm = Buffer.alloc(samples * 2);
  for (let i = 0; i < samples; i++) {
    let sum = 0;
    for (let c = 0; c < channels; c++) sum += wav.readInt16LE(data.offset + (i * channels + c) * 2);
    pcm.writeInt16LE(Math.round(sum / channels), i * 2);
  }
  return { pcm, sampleRate };
}

function decodeWithFfmpeg(file: string): Promise<PcmAudio> {
  return new Promise((resolve, reject) => {
    const child = spawn('ffmpeg', ['-v', 'error', '-i', file, '-f', 's16le', '-ac', '1', '-ar', '16000', '-'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.once('error', () =>
      reject(new CliError(`${file}: not WAV or raw PCM, and no ffmpeg on the PATH to decode it`)),
    );
    child.once('close', (code) =>
      code === 0
        ? resolve({ pcm: Buffer.concat(out), sampleRate: 16_000 })
        : reject(new CliError(`${file}: ffmpeg could not decode it: ${err.trim().split('\n')[0] ?? code}`)),
    );
  });
}

export async function readPcm(file: string, rawSampleRate: number): Promise<PcmAudio> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (error) {
    throw new CliError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  if (/\.(raw|pcm)$/i.test(file)) return { pcm: bytes, sampleRate: rawSampleRate };
  if (bytes.toString('ascii', 0, 4) === 'RIFF' && bytes.toString('ascii', 8, 12) === 'WAVE')
    return pcmOfWav(bytes, file);
  return decodeWithFfmpeg(file);
}
