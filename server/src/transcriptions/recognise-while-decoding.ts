// A job's decode (ffmpeg → the task's PCM file) and its recognition, overlapped: an engine that `readsGrowingPcm` is
// started on the file while ffmpeg still writes it, so a job takes about the longer of the two instead of their sum;
// any other engine is handed the complete file, as before.
//
// Decision — the engine reads the growing file (a poll of its size, engine/growing-pcm.ts) rather than being fed
// ffmpeg's output in chunks over a MessagePort: the file is written anyway (diarization reads it after recognition),
// the worker already reads its input from a file in ranges, and ffmpeg, its abort and its error handling stay as
// they are (media/ffmpeg.ts), so a decode that fails, is cancelled or is resumed elsewhere behaves as before.
//
// Failures: the decode's own failure is the task's failure, with the same error as when the decode was awaited
// first (the engine is cancelled at once); a failure of the engine kills ffmpeg if it still runs.
import type { DecodedPcm } from '../media/ffmpeg.ts';
import type { EngineTranscript, TranscribeInput, TranscribeOptions, TranscriptionEngine } from './engine/engine.ts';

export async function recogniseWhileDecoding(
  engine: TranscriptionEngine,
  input: Omit<TranscribeInput, 'pcmComplete'>,
  /** Starts (or takes) the decode into `input.pcmPath`; aborting the signal kills ffmpeg. */
  decode: (signal: AbortSignal) => Promise<DecodedPcm>,
  options: TranscribeOptions & { signal: AbortSignal },
): Promise<EngineTranscript> {
  const stop = new AbortController();
  const signal = AbortSignal.any([options.signal, stop.signal]);
  const decoding = decode(signal);
  if (!engine.readsGrowingPcm) {
    await decoding;
    return engine.transcribe(input, options);
  }
  // A decode that fails stops the engine at once: the task fails with the decode's error anyway, and audio the decode
  // refused (longer than the task's limit) must not be recognised on to the end of what was written.
  decoding.catch((reason: unknown) => stop.abort(reason));
  try {
    const transcript = await engine.transcribe({ ...input, pcmComplete: decoding }, { ...options, signal });
    await decoding; // settled: the engine ends only once the file is complete
    return transcript;
  } catch (error) {
    stop.abort(error);
    const decodeError = await decoding.then(
      () => undefined,
      (reason: unknown) => reason,
    );
    const decodeFailedFirst = decodeError !== undefined && decodeError !== error && !options.signal.aborted;
    throw decodeFailedFirst ? decodeError : error;
  }
}
