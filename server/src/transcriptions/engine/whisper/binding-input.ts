// What a model process hands the binding's `transcribeData` for one job: the samples and every option that decides
// what whisper.cpp decodes. Functions of their own so that the benchmark's direct side (bench/stt-whisper.ts) calls the
// binding with exactly what the engine's processes call it with: a copy could drift, the two sides would then do
// different work, and the benchmark would read the difference as the engine's overhead.
import type { WhisperChildSettings, WhisperJob } from './protocol.ts';

/**
 * The whole 16-bit samples of raw PCM bytes, as an ArrayBuffer of their own: the binding reads the buffer as int16
 * from its start and to its end, while a pooled Buffer's ArrayBuffer is larger than the file and starts elsewhere. An
 * odd trailing byte is no sample and is left out.
 */
export function pcmAudio(pcm: Uint8Array): ArrayBuffer {
  const samples = Math.floor(pcm.length / 2);
  return pcm.buffer.slice(pcm.byteOffset, pcm.byteOffset + samples * 2) as ArrayBuffer;
}

/** The decode options of a job (the progress callback, which changes nothing decoded, is the caller's to add). */
export function whisperDecodeOptions(
  settings: Pick<WhisperChildSettings, 'threads' | 'decode'>,
  job: Pick<WhisperJob, 'language' | 'prompt'>,
): Record<string, unknown> {
  return {
    language: job.language,
    maxThreads: settings.threads,
    // A segment per token, each with its own times: the words' times (words.ts) come from these.
    tokenTimestamps: true,
    maxLen: 1,
    ...(job.prompt ? { prompt: job.prompt } : {}),
    ...settings.decode,
  };
}
