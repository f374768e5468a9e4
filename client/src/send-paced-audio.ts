// Sending recorded PCM the way a microphone would: in chunks of `chunkMs`, one chunk per `chunkMs` of wall time.
// `leadMs` lets the audio run ahead of real time (the server refuses audio more than 30 s ahead with 4429); Infinity
// sends as fast as the socket takes it. Sending stops when the connection closes.

export interface PacedAudioTarget {
  readonly isOpen: boolean;
  sendAudio(chunk: Uint8Array): void;
}

export interface PacedAudioOptions {
  /** Samples per second of `pcm` (s16le mono), default 16000. */
  sampleRate?: number;
  /** Audio per frame in milliseconds, default 100. */
  chunkMs?: number;
  /** How far the audio may run ahead of real time, in milliseconds: 0 (the default) is real-time pace. */
  leadMs?: number;
  /** Called after each chunk with the audio sent so far, in seconds (to time what comes back against it). */
  onChunk?: (sentSeconds: number) => void;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Sends `pcm` to a stream connection in paced chunks; resolves when all of it is sent or the connection closed. */
export async function sendPacedAudio(
  target: PacedAudioTarget,
  pcm: Uint8Array,
  options: PacedAudioOptions = {},
): Promise<void> {
  const rate = options.sampleRate ?? 16_000;
  const chunkMs = options.chunkMs ?? 100;
  const lead = options.leadMs ?? 0;
  const chunkBytes = Math.max(1, Math.round((rate * chunkMs) / 1000)) * 2;
  const started = performance.now();
  for (let offset = 0, index = 0; offset < pcm.length; offset += chunkBytes, index++) {
    if (!target.isOpen) return;
    const due = started + index * chunkMs - lead - performance.now();
    if (due > 0) await sleep(due);
    const chunk = pcm.subarray(offset, offset + chunkBytes);
    target.sendAudio(chunk);
    options.onChunk?.((offset + chunk.length) / 2 / rate);
  }
}
