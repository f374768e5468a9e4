// The messages between the whisper engine (the parent) and its model processes (child.ts), over Node's IPC channel
// (the `advanced` serialization: a stream window's samples travel as a typed array, not as JSON numbers).

/** Settings that hold for every job of a process, given at its start. */
export interface WhisperChildSettings {
  modelPath: string;
  /** Compute threads of one decode. */
  threads: number;
  /**
   * Added to every decode (whisper.cpp's `temperatureInc`, …). Tests pass `temperatureInc: 0`: a random-weight model
   * fails the decoder's quality check in every window and would otherwise retry at five higher temperatures.
   */
  decode?: Record<string, number | boolean>;
}

export interface WhisperJob {
  id: number;
  /** 16 kHz mono s16le raw PCM; read-only. */
  pcmPath?: string;
  /** Or the samples themselves (a stream's window: short, decoded again every step, not worth a file). */
  pcm?: Int16Array;
  /** Whisper's language code, or `auto` to detect it. */
  language: string;
  /** The initial prompt (the request's terms or prompt). */
  prompt?: string;
}

export interface WhisperChildResult {
  text: string;
  /** The language the model was told or detected (Whisper's code). */
  language: string;
  segments: { text: string; t0: number; t1: number }[];
  samples: number;
  /** The process's resident memory after the job, in bytes. */
  rss: number;
}

export type ToWhisperChild = { type: 'run'; job: WhisperJob };

export type FromWhisperChild =
  | { type: 'ready'; rss: number }
  | { type: 'fatal'; message: string }
  | { type: 'progress'; id: number; fraction: number }
  | { type: 'done'; id: number; result: WhisperChildResult }
  | { type: 'failed'; id: number; message: string; invalidAudio?: boolean };
