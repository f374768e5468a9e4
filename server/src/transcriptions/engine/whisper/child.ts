// A model process of the whisper engine: loads one ggml model with @fugood/whisper.node and decodes the jobs the
// parent sends, one at a time. It is a process of its own, not a worker thread, because the native code is not safe
// to share a process with the server: a stopped decode's promise never settles, some failures abort the process, and
// the parent ends a cancelled or overdue job by killing this process (see process-pool.ts). It exits with its parent.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { pcmAudio, whisperDecodeOptions } from './binding-input.ts';
import type { FromWhisperChild, ToWhisperChild, WhisperChildSettings, WhisperJob } from './protocol.ts';

interface Transcription {
  promise: Promise<{ result: string; language?: string; segments: { text: string; t0: number; t1: number }[] }>;
}
interface WhisperContext {
  transcribeData(audio: ArrayBuffer, options: Record<string, unknown>): Transcription;
}
interface WhisperBinding {
  initWhisper(options: { filePath: string; useGpu: boolean }): Promise<WhisperContext>;
}

const send = (message: FromWhisperChild) => process.send?.(message);

async function run(context: WhisperContext, settings: WhisperChildSettings, job: WhisperJob): Promise<void> {
  let pcm: Uint8Array;
  try {
    pcm = job.pcm
      ? new Uint8Array(job.pcm.buffer, job.pcm.byteOffset, job.pcm.byteLength)
      : await readFile(job.pcmPath!);
  } catch (error) {
    send({
      type: 'failed',
      id: job.id,
      message: `the PCM file cannot be read: ${(error as Error).message}`,
      invalidAudio: true,
    });
    return;
  }
  const samples = Math.floor(pcm.length / 2);
  if (samples === 0) {
    send({ type: 'failed', id: job.id, message: 'the audio is empty', invalidAudio: true });
    return;
  }
  let last = 0;
  const { promise } = context.transcribeData(pcmAudio(pcm), {
    ...whisperDecodeOptions(settings, job),
    onProgress: (percent: number) => {
      // Reported once per 30 s window, and not always within 0–100.
      const fraction = Math.min(0.99, Math.max(0, percent / 100));
      if (fraction <= last) return;
      last = fraction;
      send({ type: 'progress', id: job.id, fraction });
    },
  });
  try {
    const result = await promise;
    send({
      type: 'done',
      id: job.id,
      result: {
        text: result.result.trim(),
        language: result.language ?? job.language,
        segments: result.segments.map(({ text, t0, t1 }) => ({ text, t0, t1 })),
        samples,
        rss: process.memoryUsage().rss,
      },
    });
  } catch (error) {
    send({ type: 'failed', id: job.id, message: (error as Error).message });
  }
}

async function main(): Promise<void> {
  const settings = JSON.parse(process.argv[2] ?? '{}') as WhisperChildSettings;
  process.on('disconnect', () => process.exit(0));
  let context: WhisperContext;
  try {
    const binding = createRequire(import.meta.url)('@fugood/whisper.node') as WhisperBinding;
    context = await binding.initWhisper({ filePath: settings.modelPath, useGpu: false });
  } catch (error) {
    send({ type: 'fatal', message: (error as Error).message });
    process.exit(1);
  }
  const queue: WhisperJob[] = [];
  let busy = false;
  const next = async () => {
    if (busy) return;
    const job = queue.shift();
    if (!job) return;
    busy = true;
    await run(context, settings, job);
    busy = false;
    void next();
  };
  process.on('message', (message: ToWhisperChild) => {
    if (message.type !== 'run') return;
    queue.push(message.job);
    void next();
  });
  send({ type: 'ready', rss: process.memoryUsage().rss });
}

void main();
