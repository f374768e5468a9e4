// Reading the engines' input format — a raw 16 kHz mono signed 16-bit little-endian PCM file — without loading a long
// recording whole: its length from the file size, a range of samples, or consecutive chunks. A trailing odd byte (half
// a sample) is ignored. Errors opening or reading the file become EngineError `invalid_audio`.
import { open, stat, type FileHandle } from 'node:fs/promises';
import { EngineError } from './engine.ts';

export const SAMPLE_RATE = 16_000;
export const BYTES_PER_SAMPLE = 2;

/** Number of whole samples in the file. */
export async function pcmSampleCount(pcmPath: string): Promise<number> {
  try {
    const info = await stat(pcmPath);
    if (!info.isFile()) throw new Error('not a regular file');
    return Math.floor(info.size / BYTES_PER_SAMPLE);
  } catch (error) {
    throw invalidAudio(pcmPath, error);
  }
}

export async function openPcm(pcmPath: string): Promise<FileHandle> {
  try {
    return await open(pcmPath, 'r');
  } catch (error) {
    throw invalidAudio(pcmPath, error);
  }
}

/** Samples [start, end) of an open PCM file, as a fresh Int16Array (its own, aligned buffer). */
export async function readPcmRange(file: FileHandle, start: number, end: number): Promise<Int16Array> {
  const samples = new Int16Array(Math.max(0, end - start));
  const bytes = new Uint8Array(samples.buffer);
  let filled = 0;
  while (filled < bytes.length) {
    const { bytesRead } = await file.read(bytes, filled, bytes.length - filled, start * BYTES_PER_SAMPLE + filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  // A file that shrank while being read: return what is there, whole samples only.
  return filled === bytes.length ? samples : samples.subarray(0, Math.floor(filled / BYTES_PER_SAMPLE));
}

/** The file's samples in consecutive chunks of `chunkSamples` (the last one shorter). */
export async function* readPcmChunks(file: FileHandle, totalSamples: number, chunkSamples: number) {
  for (let start = 0; start < totalSamples; start += chunkSamples) {
    const chunk = await readPcmRange(file, start, Math.min(totalSamples, start + chunkSamples));
    if (chunk.length === 0) return;
    yield chunk;
  }
}

function invalidAudio(pcmPath: string, cause: unknown): EngineError {
  const reason = cause instanceof Error ? cause.message : String(cause);
  return new EngineError('invalid_audio', `cannot read the PCM file ${pcmPath}: ${reason}`, { cause });
}
