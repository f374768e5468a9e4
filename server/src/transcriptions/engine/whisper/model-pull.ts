// `scribe models pull whisper-<name>`: fetches a whisper.cpp ggml model from where whisper.cpp publishes them
// (huggingface.co/ggerganov/whisper.cpp, the location its models/download-ggml-model.sh uses) into the data dir's
// `models/`, checks it against the checksum whisper.cpp publishes in its models/README.md — a SHA-1, the only sum
// published there — and with the same file check the server runs before loading (model-file.ts), then prints the
// setting to use. An interrupted download resumes where it stopped (an HTTP range request on the `.part` file); a
// file whose sum does not match is removed, so the next run starts over.
//
// Only the f16 models are listed: the quantized ones (`-q5_0`, `-q8_0`) are refused by the file check, since this
// runtime aborts on some quantized files.
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, existsSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { inspectWhisperModel, WhisperModelError } from './model-file.ts';

export const WHISPER_MODEL_SOURCE = 'https://huggingface.co/ggerganov/whisper.cpp/resolve/main';

export interface WhisperModelEntry {
  /** SHA-1 of the file, as whisper.cpp's models/README.md publishes it. */
  sha1: string;
  /** Its size as published (MiB), for the listing. */
  size: string;
  /** What it is for, in the listing. */
  use: string;
}

/** whisper.cpp's models/README.md, "Available models" (f16 files only). */
export const WHISPER_MODELS: Record<string, WhisperModelEntry> = {
  tiny: { sha1: 'bd577a113a864445d4c299885e0cb97d4ba92b5f', size: '75 MiB', use: 'fastest, lowest accuracy' },
  'tiny.en': { sha1: 'c78c86eb1a8faa21b369bcd33207cc90d64ae9df', size: '75 MiB', use: 'English only' },
  base: { sha1: '465707469ff3a37a2b9b8d8f89f2f99de7299dac', size: '142 MiB', use: 'a 2-core server' },
  'base.en': { sha1: '137c40403d78fd54d454da0f9bd998f78703390c', size: '142 MiB', use: 'English only' },
  small: { sha1: '55356645c2b361a969dfd0ef2c5a50d530afd8d5', size: '466 MiB', use: '4+ cores' },
  'small.en': { sha1: 'db8a495a91d927739e50b3fc1cc4c6b8f6c2d022', size: '466 MiB', use: 'English only' },
  medium: { sha1: 'fd9727b6e1217c2f614f9b698455c4ffd82463b4', size: '1.5 GiB', use: '8+ cores' },
  'medium.en': { sha1: '8c30f0e44ce9560643ebd10bbe50cd20eafd3723', size: '1.5 GiB', use: 'English only' },
  'large-v1': { sha1: 'b1caaf735c4cc1429223d5a74f0f4d0b9b59a299', size: '2.9 GiB', use: 'superseded by large-v3' },
  'large-v2': { sha1: '0f4c8e34f21cf1a914c59d8b3ce882345ad349d6', size: '2.9 GiB', use: 'superseded by large-v3' },
  'large-v3': { sha1: 'ad82bf6a9043ceed055076d0fd39f5f186ff8062', size: '2.9 GiB', use: 'best accuracy, GPU-class' },
  'large-v3-turbo': { sha1: '4af2b29d7ec73d781377bfd1758ca957a807e941', size: '1.5 GiB', use: 'near large-v3, faster' },
};

export interface PullOptions {
  /** The model's name without `whisper-` (`base`, `tiny.en`, …). */
  name: string;
  dataDir: string;
  /** A server with the same files under the same names (default WHISPER_MODEL_SOURCE). */
  mirror?: string;
  /** The catalog to check names and sums against (tests pass their own, for a synthetic model on a local mirror). */
  catalog?: Record<string, WhisperModelEntry>;
  /** Where progress and the result are written (default stdout); a TTY gets a redrawn bar, anything else lines. */
  out?: NodeJS.WritableStream & { isTTY?: boolean };
}

export class PullError extends Error {
  override readonly name = 'PullError';
}

const MiB = 1024 * 1024;

function progressReporter(out: PullOptions['out'] & object, total: number | undefined) {
  const started = Date.now();
  let lastLine = -1;
  return {
    update(received: number, resumedFrom: number) {
      const fraction = total ? received / total : undefined;
      const rate = (received - resumedFrom) / MiB / Math.max(0.001, (Date.now() - started) / 1000);
      const amount = `${(received / MiB).toFixed(1)}${total ? ` / ${(total / MiB).toFixed(1)}` : ''} MiB`;
      if (out.isTTY) {
        const width = 30;
        const filled = fraction === undefined ? 0 : Math.round(fraction * width);
        const bar = `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}]`;
        const percent = fraction === undefined ? '' : ` ${Math.floor(fraction * 100)}%`;
        out.write(`\r${bar}${percent} ${amount} ${rate.toFixed(1)} MiB/s `);
        return;
      }
      // Not a terminal: one line per tenth, so a log is not flooded.
      const tenth = fraction === undefined ? Math.floor(received / (50 * MiB)) : Math.floor(fraction * 10);
      if (tenth === lastLine) return;
      lastLine = tenth;
      out.write(`${fraction === undefined ? '' : `${Math.floor(fraction * 100)}% `}${amount}\n`);
    },
    done() {
      if (out.isTTY) out.write('\n');
    },
  };
}

async function sha1Of(path: string): Promise<string> {
  const hash = createHash('sha1');
  await pipeline(createReadStream(path), hash);
  return hash.digest('hex');
}

/** Downloads (or resumes) the model and returns its path; throws PullError with a one-line reason. */
export async function pullWhisperModel(options: PullOptions): Promise<string> {
  const catalog = options.catalog ?? WHISPER_MODELS;
  const out = options.out ?? process.stdout;
  const entry = catalog[options.name];
  if (!entry) {
    throw new PullError(
      `unknown model "whisper-${options.name}"; one of: ${Object.keys(catalog)
        .map((n) => `whisper-${n}`)
        .join(', ')}`,
    );
  }
  const dir = join(options.dataDir, 'models');
  mkdirSync(dir, { recursive: true });
  const file = `ggml-${options.name}.bin`;
  const target = join(dir, file);
  const part = `${target}.part`;
  if (existsSync(target) && (await sha1Of(target)) === entry.sha1) {
    out.write(`whisper-${options.name} is already in ${dir} (checksum verified)\n`);
    return target;
  }

  const url = `${(options.mirror ?? WHISPER_MODEL_SOURCE).replace(/\/+$/, '')}/${file}`;
  const have = existsSync(part) ? statSync(part).size : 0;
  let response: Response;
  try {
    response = await fetch(url, { headers: have > 0 ? { range: `bytes=${have}-` } : {}, redirect: 'follow' });
  } catch (error) {
    throw new PullError(
      `cannot reach ${new URL(url).host}: ${String((error as Error).cause ?? (error as Error).message)}; check the network and run the command again`,
    );
  }
  // 416: the part is already the whole file (a run that stopped before the check); anything else from 0.
  const resumed = have > 0 && response.status === 206;
  if (!response.ok && response.status !== 416) {
    throw new PullError(`${url} answered HTTP ${response.status}`);
  }
  if (response.status !== 416) {
    if (!resumed && have > 0) rmSync(part, { force: true });
    const start = resumed ? have : 0;
    const length = Number(response.headers.get('content-length')) || undefined;
    const progress = progressReporter(out, length === undefined ? undefined : start + length);
    out.write(`${resumed ? 'resuming' : 'downloading'} whisper-${options.name} from ${url}\n`);
    let received = start;
    const counter = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        received += chunk.length;
        progress.update(received, start);
        callback(null, chunk);
      },
    });
    try {
      await pipeline(
        Readable.fromWeb(response.body as WebReadableStream<Uint8Array>),
        counter,
        createWriteStream(part, { flags: resumed ? 'a' : 'w' }),
      );
    } catch (error) {
      progress.done();
      throw new PullError(
        `the download stopped at ${(received / MiB).toFixed(1)} MiB (${(error as Error).message}); run the command again to resume`,
      );
    }
    progress.done();
    if (length !== undefined && received !== start + length) {
      throw new PullError(
        `the download stopped at ${(received / MiB).toFixed(1)} MiB; run the command again to resume`,
      );
    }
  }

  const sum = await sha1Of(part);
  if (sum !== entry.sha1) {
    rmSync(part, { force: true });
    throw new PullError(
      `the downloaded file's SHA-1 is ${sum}, not the published ${entry.sha1}; it was removed — run the command again`,
    );
  }
  try {
    inspectWhisperModel(part);
  } catch (error) {
    if (!(error instanceof WhisperModelError)) throw error;
    throw new PullError(`the downloaded file is not a usable model: ${error.message}`);
  }
  renameSync(part, target);
  out.write(
    `whisper-${options.name} saved to ${target} (SHA-1 verified)\nUse it with:\n  SCRIBE_WHISPER_MODEL=${target}\n`,
  );
  return target;
}
