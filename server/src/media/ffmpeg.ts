// The one place the server runs ffmpeg: probing an uploaded or downloaded file (is there audio, how long is it) and
// decoding it to the 16 kHz mono 16-bit PCM the recognizers read. There is no ffprobe in the static build, so probing
// parses `ffmpeg -i` output. ffmpeg runs without a shell, reads only local files (no network protocols, no playlist
// or concat demuxers that could reach other files), is killed on abort, and its stderr is captured with a bound.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { rm, stat } from 'node:fs/promises';
import { ApiError } from '../http/api-error.ts';

const require = createRequire(import.meta.url);

/** The ffmpeg binary: SCRIBE_FFMPEG_PATH, or the static build of @ffmpeg-installer/ffmpeg. */
export const ffmpegPath: string =
  process.env.SCRIBE_FFMPEG_PATH || (require('@ffmpeg-installer/ffmpeg') as { path: string }).path;

/** Sample rate of the decoded PCM (mono, signed 16-bit little-endian). */
export const PCM_SAMPLE_RATE = 16_000;

/**
 * Demuxers ffmpeg may use on a client's file: audio and audio-video containers only. This leaves out hls, dash,
 * concat, image sequences, subtitles and devices, which can open other files or URLs named inside the file.
 */
// prettier-ignore
const ALLOWED_DEMUXERS = [
  'aac', 'ac3', 'aiff', 'amr', 'amrnb', 'amrwb', 'ape', 'asf', 'au', 'avi', 'caf', 'dsf', 'dts', 'dtshd', 'dv',
  'eac3', 'flac', 'flv', 'gsm', 'ircam', 'loas', 'matroska', 'mlp', 'mov', 'mp3', 'mpc', 'mpc8', 'mpeg', 'mpegts',
  'mxf', 'nistsphere', 'nut', 'ogg', 'oma', 'qcp', 'rm', 'shn', 'sox', 'tak', 'truehd', 'tta', 'voc', 'vqf', 'w64',
  'wav', 'wtv', 'wv', 'xwma',
].join(',');

/** Input options shared by every run: local files only, allowed demuxers only; `quiet` prints errors only. */
function inputArgs(path: string, quiet = false): string[] {
  return [
    '-hide_banner',
    '-nostdin',
    ...(quiet ? ['-loglevel', 'error'] : []),
    '-protocol_whitelist',
    'file',
    '-format_whitelist',
    ALLOWED_DEMUXERS,
    '-i',
    `file:${path}`,
  ];
}

export interface MediaInfo {
  durationSeconds: number;
  hasAudio: boolean;
  /** ffmpeg's demuxer name, e.g. `wav`, `mp3`, `ogg`, `matroska,webm`, `mov,mp4,m4a,3gp,3g2,mj2`. */
  format: string;
}

export interface DecodedPcm {
  samples: number;
  durationSeconds: number;
}

const STDERR_HEAD_BYTES = 64 * 1024;
const STDERR_TAIL_BYTES = 8 * 1024;

/** Keeps the first 64 KiB of a stream (where `ffmpeg -i` describes the input) and its last 8 KiB (the final error). */
class BoundedCapture {
  private head: Buffer[] = [];
  private headBytes = 0;
  private tail = Buffer.alloc(0);
  private dropped = false;

  push(chunk: Buffer): void {
    const room = STDERR_HEAD_BYTES - this.headBytes;
    if (room > 0) {
      const part = chunk.subarray(0, room);
      this.head.push(part);
      this.headBytes += part.length;
      chunk = chunk.subarray(part.length);
    }
    if (chunk.length === 0) return;
    const joined = Buffer.concat([this.tail, chunk]);
    if (joined.length > STDERR_TAIL_BYTES) this.dropped = true;
    this.tail = joined.subarray(Math.max(0, joined.length - STDERR_TAIL_BYTES));
  }

  text(): string {
    const head = Buffer.concat(this.head).toString('utf8');
    return this.dropped ? `${head}\n[…]\n${this.tail.toString('utf8')}` : head + this.tail.toString('utf8');
  }
}

interface RunResult {
  code: number | null;
  stderr: string;
  stdoutBytes: number;
}

/** Runs ffmpeg (no shell). Rejects with the signal's reason on abort (after killing it) or if it cannot start. */
function runFfmpeg(
  args: string[],
  options: { signal?: AbortSignal; countStdout?: boolean; onStderr?: (text: string) => void } = {},
): Promise<RunResult> {
  const { signal } = options;
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const child = spawn(ffmpegPath, args, {
      stdio: ['ignore', options.countStdout ? 'pipe' : 'ignore', 'pipe'],
      windowsHide: true,
    });
    const stderr = new BoundedCapture();
    let stdoutBytes = 0;
    child.stdout?.on('data', (chunk: Buffer) => (stdoutBytes += chunk.length));
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr.push(chunk);
      options.onStderr?.(stderr.text());
    });
    const onAbort = () => child.kill('SIGKILL');
    signal?.addEventListener('abort', onAbort, { once: true });
    let done = false;
    child.on('error', (error) => {
      if (done) return;
      done = true;
      signal?.removeEventListener('abort', onAbort);
      child.kill('SIGKILL');
      reject(error);
    });
    child.on('close', (code) => {
      if (done) return;
      done = true;
      signal?.removeEventListener('abort', onAbort);
      if (signal?.aborted) reject(signal.reason);
      else resolve({ code, stderr: stderr.text(), stdoutBytes });
    });
  });
}

/** The last few lines ffmpeg printed, kept as the error's `cause` for logs (never shown to the client). */
function unsupported(message: string, stderr: string): ApiError {
  const error = new ApiError(400, 'unsupported_format', message, 'file');
  error.cause = stderr.trim().split('\n').slice(-5).join('\n');
  return error;
}

const NOT_MEDIA = 'The file is not an audio or video format this server can read.';

function parseDuration(stderr: string): number | undefined {
  if (/Estimating duration from bitrate/.test(stderr)) return undefined; // a guess, often far off (ADTS, bare MP3)
  const match = /^\s*Duration: (\d+):(\d{2}):(\d{2}(?:\.\d+)?)/m.exec(stderr);
  if (!match) return undefined; // `Duration: N/A` (e.g. a WebM written as a live stream)
  return Number(match[1]) * 3600 + Number(match[2]) * 60 + Number(match[3]);
}

/** Decodes the first audio stream to nowhere, counting the PCM bytes: the exact length when the container has none. */
async function measureByDecoding(path: string, signal?: AbortSignal): Promise<number> {
  const args = [...inputArgs(path, true), '-map', '0:a:0', '-vn'];
  args.push('-ac', '1', '-ar', String(PCM_SAMPLE_RATE), '-f', 's16le', 'pipe:1');
  const result = await runFfmpeg(args, { signal, countStdout: true });
  if (result.code !== 0) throw unsupported(NOT_MEDIA, result.stderr);
  return result.stdoutBytes / 2 / PCM_SAMPLE_RATE;
}

/**
 * Describes a media file: its demuxer, whether it has audio and its duration. A file ffmpeg cannot read, or one
 * with no audio stream, is 400 unsupported_format (param `file`).
 */
export async function probeMedia(path: string, options: { signal?: AbortSignal } = {}): Promise<MediaInfo> {
  // With no output file ffmpeg describes the input and exits 1; the description is all we need.
  const { stderr } = await runFfmpeg(inputArgs(path), options);
  const { format, durationSeconds } = describedInput(stderr);
  return {
    durationSeconds: durationSeconds ?? (await measureByDecoding(path, options.signal)),
    hasAudio: true,
    format,
  };
}

/** The input as `ffmpeg -i` describes it on stderr; 400 unsupported_format when it is not media or has no audio. */
function describedInput(stderr: string): { format: string; durationSeconds: number | undefined } {
  const input = /^Input #0, (.+?), from '/m.exec(stderr);
  if (!input?.[1]) throw unsupported(NOT_MEDIA, stderr);
  const hasAudio = /^\s*Stream #0:\d+.*?: Audio: /m.test(stderr);
  if (!hasAudio) throw unsupported('The file has no audio stream.', stderr);
  return { format: input[1], durationSeconds: parseDuration(stderr) };
}

/** A decode started by startDecode: the probe is known as soon as ffmpeg has described the input. */
export interface RunningDecode {
  /** The medium's description; rejects with 400 unsupported_format like probeMedia. */
  probed: Promise<MediaInfo>;
  /** The PCM written; rejects like decodeToPcm (the output file is removed on failure). */
  decoded: Promise<DecodedPcm>;
  /** Kills ffmpeg (if still running); both promises then reject with the reason unless already settled. */
  abort(reason?: unknown): void;
}

export interface DecodeOptions {
  /**
   * Stops the output after this many seconds of audio (ffmpeg's output `-t`): the decoded PCM is never longer, however
   * long the audio really is. A container's stated duration can be forged (an MP3's Xing/Info frame count), so a
   * caller with a limit decodes a little past it and measures the PCM instead of trusting the probe.
   */
  maxOutputSeconds?: number;
}

/** Output options that stop the decode after `maxOutputSeconds` of audio (none without a bound). */
function outputBound({ maxOutputSeconds }: DecodeOptions): string[] {
  if (maxOutputSeconds === undefined || !Number.isFinite(maxOutputSeconds)) return [];
  return ['-t', String(Math.max(0, maxOutputSeconds))];
}

/**
 * Probes and decodes in ONE ffmpeg run: ffmpeg describes its input on stderr before it decodes a sample, so `probed`
 * resolves early (at "Stream mapping:") while the decode goes on. A container that states no reliable duration
 * resolves `probed` when the decode ends, with the length of the PCM (at most `maxOutputSeconds`).
 */
export function startDecode(inputPath: string, outputPath: string, options: DecodeOptions = {}): RunningDecode {
  const controller = new AbortController();
  const args = [...inputArgs(inputPath), '-nostats', '-map', '0:a:0', '-vn', ...outputBound(options)];
  args.push('-ac', '1', '-ar', String(PCM_SAMPLE_RATE), '-f', 's16le', '-y', `file:${outputPath}`);
  let describe: ((stderr: string) => void) | undefined;
  const described = new Promise<string>((resolve) => (describe = resolve));
  const run = runFfmpeg(args, {
    signal: controller.signal,
    onStderr: (text) => {
      if (describe && /^Stream mapping:/m.test(text)) {
        describe(text);
        describe = undefined;
      }
    },
  });
  const decoded = run
    .then(async (result) => {
      if (result.code !== 0) throw unsupported('The audio in the file could not be decoded.', result.stderr);
      const samples = Math.floor((await stat(outputPath)).size / 2);
      return { samples, durationSeconds: samples / PCM_SAMPLE_RATE };
    })
    .catch(async (error: unknown) => {
      await rm(outputPath, { force: true });
      throw error;
    });
  // ffmpeg that ends before "Stream mapping:" (not media, no audio stream) is described by all it printed.
  const probed = Promise.race([described, run.then((result) => result.stderr)]).then(async (stderr) => {
    const { format, durationSeconds } = describedInput(stderr);
    return { format, hasAudio: true, durationSeconds: durationSeconds ?? (await decoded).durationSeconds };
  });
  // A caller that only looks at one of the two must not leave the other as an unhandled rejection.
  probed.catch(() => undefined);
  decoded.catch(() => undefined);
  return { probed, decoded, abort: (reason) => controller.abort(reason) };
}

/**
 * Decodes the first audio stream of `inputPath` into `outputPath` as raw 16 kHz mono s16le PCM. A file ffmpeg cannot
 * decode is 400 unsupported_format; an abort kills ffmpeg and rejects with the signal's reason. The output file is
 * removed on any failure.
 */
export async function decodeToPcm(
  inputPath: string,
  outputPath: string,
  options: { signal?: AbortSignal } & DecodeOptions = {},
): Promise<DecodedPcm> {
  const args = [...inputArgs(inputPath, true), '-map', '0:a:0', '-vn', ...outputBound(options)];
  args.push('-ac', '1', '-ar', String(PCM_SAMPLE_RATE), '-f', 's16le', '-y', `file:${outputPath}`);
  try {
    const result = await runFfmpeg(args, options);
    if (result.code !== 0) throw unsupported('The audio in the file could not be decoded.', result.stderr);
    const samples = Math.floor((await stat(outputPath)).size / 2);
    return { samples, durationSeconds: samples / PCM_SAMPLE_RATE };
  } catch (error) {
    await rm(outputPath, { force: true });
    throw error;
  }
}
