// Whether the PCM file an engine reads is still being written, shared between the thread that runs the decode (it
// knows when ffmpeg ends) and the worker thread that reads the file as it grows (it knows how much is there, from the
// file's size). A SharedArrayBuffer of one Int32: it travels inside the job message unchanged (a structured clone
// shares it), so the worker protocol needs no extra message for "the file is complete" or "the decode failed".
//
// The decode's own error is not carried across: the caller that owns the decode reports it (the worker only needs to
// stop), so a decode that fails half-way fails the task with the same error as a decode awaited before recognition.

const WRITING = 0;
const COMPLETE = 1;
const FAILED = 2;

export type PcmWritingState = 'writing' | 'complete' | 'failed';

/** A cell that follows `written`: complete when it resolves, failed when it rejects. */
export function shareWriting(written: Promise<unknown>): SharedArrayBuffer {
  const buffer = new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT);
  const cell = new Int32Array(buffer);
  written.then(
    () => Atomics.store(cell, 0, COMPLETE),
    () => Atomics.store(cell, 0, FAILED),
  );
  return buffer;
}

export function writingState(buffer: SharedArrayBuffer): PcmWritingState {
  const value = Atomics.load(new Int32Array(buffer), 0);
  return value === WRITING ? 'writing' : value === COMPLETE ? 'complete' : 'failed';
}
