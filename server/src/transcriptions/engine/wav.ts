// The canonical 44-byte WAV (RIFF, PCM format 1) header, to send our raw PCM to upstreams that want a file with a
// format (OpenAI-compatible /audio/transcriptions), and a small reader for the WAV files tests use as fixtures
// (LibriVox readings) and for checking what an upstream received. Only uncompressed PCM is understood.
import { SAMPLE_RATE } from './pcm-file.ts';

export const WAV_HEADER_BYTES = 44;

/** Header for `dataBytes` bytes of 16-bit PCM (mono, 16 kHz unless told otherwise). */
export function wavHeader(dataBytes: number, sampleRate = SAMPLE_RATE, channels = 1): Buffer<ArrayBuffer> {
  const header = Buffer.alloc(WAV_HEADER_BYTES);
  const blockAlign = channels * 2;
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(36 + dataBytes, 4);
  header.write('WAVE', 8, 'ascii');
  header.write('fmt ', 12, 'ascii');
  header.writeUInt32LE(16, 16); // fmt chunk size
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(channels, 22);
  header.writeUInt32LE(sampleRate, 24);
  header.writeUInt32LE(sampleRate * blockAlign, 28); // byte rate
  header.writeUInt16LE(blockAlign, 32);
  header.writeUInt16LE(16, 34); // bits per sample
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(dataBytes, 40);
  return header;
}

export interface ParsedWav {
  format: number;
  channels: number;
  sampleRate: number;
  bitsPerSample: number;
  /** The `data` chunk's bytes (a view into the input). */
  data: Buffer;
}

/** Parses a RIFF/WAVE file, walking its chunks; throws on anything that is not a well-formed WAV. */
export function parseWav(file: Buffer): ParsedWav {
  if (file.length < 12 || file.toString('ascii', 0, 4) !== 'RIFF' || file.toString('ascii', 8, 12) !== 'WAVE') {
    throw new Error('not a RIFF/WAVE file');
  }
  if (file.readUInt32LE(4) !== file.length - 8) throw new Error('RIFF size does not match the file size');
  let fmt: Omit<ParsedWav, 'data'> | undefined;
  for (let at = 12; at + 8 <= file.length;) {
    const id = file.toString('ascii', at, at + 4);
    const size = file.readUInt32LE(at + 4);
    const body = at + 8;
    if (body + size > file.length) throw new Error(`chunk "${id}" runs past the end of the file`);
    if (id === 'fmt ') {
      fmt = {
        format: file.readUInt16LE(body),
        channels: file.readUInt16LE(body + 2),
        sampleRate: file.readUInt32LE(body + 4),
        bitsPerSample: file.readUInt16LE(body + 14),
      };
    } else if (id === 'data') {
      if (!fmt) throw new Error('data chunk before fmt chunk');
      return { ...fmt, data: file.subarray(body, body + size) };
    }
    at = body + size + (size % 2); // chunks are word-aligned
  }
  throw new Error('no data chunk');
}
