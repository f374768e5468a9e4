// `npm run bench:stt-whisper`: the whisper engine against @fugood/whisper.node called directly, with synthetic models
// of tiny's and base's real dimensions — random weights cost the same compute per token as trained ones (a random
// model may emit more tokens per 30 s window than a real one, so the speeds are a conservative bound).
//  (1) Throughput: the engine's path (a job through the queue to its model process, which reads the PCM file and
//      decodes it) against the binding called in this process on the same file (read each time), same model, same
//      samples and decode options — the model process's own (binding-input.ts: `tokenTimestamps` with `maxLen: 1`,
//      here `temperatureInc: 0`, all cores). `BENCH_ROUNDS` (3) pairs, the order alternating; per pair the ratio
//      engine / direct of audio seconds per wall second, and of CPU seconds (the model process's own from /proc against
//      this process's). Per pair also whether both sides produced the same transcript: a random model's output is
//      deterministic, so the same transcript means the same decoding work, and a CPU difference between the sides is
//      then the machine's (the same instructions run slower beside other work), not more decoding. And how many
//      threads did the work (a thread with ≥ 10 % of the side's CPU): the prebuilt binding computes whisper.cpp's
//      graphs in one thread whatever `maxThreads` says (its ggml was built without OpenMP code, see bench/README.md).
//      Medians with an interval that holds the median with ≥ 94 % confidence (order statistics).
//      Each side is warmed up first with a 2 s decode (the engine's also starts its process and loads the model).
//      Target: wall ratio ≥ 0.95.
//  (2) Memory: the model process's peak resident memory (VmHWM), and the direct context's growth of this process.
//  (3) A stream: `BENCH_STREAM_SECONDS` (8; 0 skips it) of the readings sent at real-time pace in 100 ms chunks to a Whisper stream
//      session (the stream engine the server builds, main-thread side in this process); partials and finals counted,
//      the time from the last chunk to the last final (end of speech → final), the real-time factor of the window
//      decodes (their wall time over the session's audio), the session's memory in this process (RSS growth) and the
//      model process's peak while it streams.
// Audio: the LibriVox readings of pocketsphinx-testdata joined (≈ 25 s), decoded once to 16 kHz PCM.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { ffmpegPath } from '../server/src/media/ffmpeg.ts';
import { createWhisperStreamEngine } from '../server/src/streaming/whisper-stream-engine.ts';
import { whisperDimensions, writeSyntheticWhisperModel } from '../server/src/test-support/whisper-model.ts';
import { pcmAudio, whisperDecodeOptions } from '../server/src/transcriptions/engine/whisper/binding-input.ts';
import { createWhisperEngine, type WhisperEngine } from '../server/src/transcriptions/engine/whisper/engine.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SIZES = (process.env.BENCH_SIZES ?? 'tiny,base').split(',') as ('tiny' | 'base')[];
const STREAM_SECONDS = Number(process.env.BENCH_STREAM_SECONDS ?? 8);
const threads = availableParallelism();
const dir = mkdtempSync(join(tmpdir(), 'scribe-bench-whisper-'));
const librivox = '/usr/share/pocketsphinx/test/data/librivox';
const CLOCK_TICKS = 100; // USER_HZ on Linux

interface Binding {
  initWhisper(options: { filePath: string; useGpu: boolean }): Promise<{
    transcribeData(audio: ArrayBuffer, options: Record<string, unknown>): { promise: Promise<{ result: string }> };
    release(): Promise<void>;
  }>;
}
const binding = createRequire(import.meta.url)('@fugood/whisper.node') as Binding;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
/** An interval holding the median with about 95 % confidence (order statistics; with ≤ 5 values: min–max). */
function medianInterval(values: number[]): [number, number] {
  const sorted = [...values].sort((a, b) => a - b);
  const half = (1.96 * Math.sqrt(sorted.length)) / 2;
  const low = Math.max(1, Math.floor(sorted.length / 2 - half));
  const high = Math.min(sorted.length, Math.ceil(1 + sorted.length / 2 + half));
  return [sorted[low - 1]!, sorted[high - 1]!];
}
const withInterval = (values: number[]) => {
  const [low, high] = medianInterval(values);
  return `${median(values).toFixed(3)} (interval ${low.toFixed(3)}–${high.toFixed(3)})`;
};
const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MiB`;

/** CPU seconds a process has used (user + system, all threads), from /proc. */
function cpuSecondsOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}
/** A process's peak resident memory (VmHWM), in bytes. */
function peakRssOf(pid: number): number {
  const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) * 1024 : 0;
}
/** CPU seconds of each thread of a process, by thread id (threads that ended are not listed). */
function threadCpuOf(pid: number): Map<string, number> {
  const threads = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      threads.set(tid, (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS);
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return threads;
}
/** Threads that used at least a tenth of the CPU a process used between two readings. */
function busyThreads(before: Map<string, number>, after: Map<string, number>): number {
  const used = [...after].map(([tid, cpu]) => cpu - (before.get(tid) ?? 0));
  const total = used.reduce((a, b) => a + b, 0);
  return used.filter((cpu) => total > 0 && cpu >= total / 10).length;
}
const ownCpu = () => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1e6;
};

const pcmPath = join(dir, 'librivox.raw');
const ids = readFileSync(join(librivox, 'fileids'), 'utf8').split('\n').filter(Boolean);
const inputs = ids.flatMap((id) => ['-i', join(librivox, `${id}.wav`)]);
execFileSync(ffmpegPath, [
  ...['-v', 'error', ...inputs],
  ...['-filter_complex', `concat=n=${ids.length}:v=0:a=1`, '-f', 's16le', '-ar', '16000', '-ac', '1', pcmPath],
]);
const seconds = readFileSync(pcmPath).length / 2 / 16000;
/** The first 2 s: the warm-up job of each side (a decode costs about the same whatever the audio's length under 30 s). */
const warmupPath = join(dir, 'warmup.raw');
writeFileSync(warmupPath, readFileSync(pcmPath).subarray(0, 2 * 32_000));
console.log(
  `audio ${seconds.toFixed(1)} s, ${threads} threads, ${ROUNDS} rounds; load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}`,
);

async function streamOnce(engine: WhisperEngine, pid: number) {
  const pcm = readFileSync(pcmPath).subarray(0, STREAM_SECONDS * 32_000);
  let decodeWall = 0;
  const timed: WhisperEngine = {
    ...engine,
    decodeWindow: async (input) => {
      const t = performance.now();
      try {
        return await engine.decodeWindow(input);
      } finally {
        decodeWall += performance.now() - t;
      }
    },
  };
  const stream = createWhisperStreamEngine(timed);
  let partials = 0;
  let finals = 0;
  let lastFinalAt = 0;
  const rssBefore = process.memoryUsage().rss;
  let rssPeak = rssBefore;
  const channel = await stream.open(
    'bench',
    { language: 'en', sampleRate: 16000, interimResults: true, wordTimestamps: true, endpointing: 300 },
    {
      onEvents: (events) => {
        for (const event of events) {
          if (event.type === 'transcript.partial') partials++;
          else {
            finals++;
            lastFinalAt = performance.now();
          }
        }
      },
      onFailure: (message) => console.log(`  stream failed: ${message}`),
    },
  );
  const started = performance.now();
  for (let offset = 0, chunk = 0; offset < pcm.length; offset += 3200, chunk++) {
    channel.push(pcm.subarray(offset, offset + 3200));
    rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
    const due = started + (chunk + 1) * 100;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - performance.now())));
  }
  const lastChunk = performance.now();
  await channel.end();
  const endToFinal = lastFinalAt - lastChunk;
  await stream.close();
  console.log(
    `  stream (${STREAM_SECONDS} s at real-time pace): ${partials} partials, ${finals} finals; last chunk → last final ` +
      `${endToFinal.toFixed(0)} ms; window decodes ${(decodeWall / 1000).toFixed(1)} s wall for ${STREAM_SECONDS} s of ` +
      `audio (real-time factor ${(decodeWall / 1000 / STREAM_SECONDS).toFixed(2)}); this process +${mib(rssPeak - rssBefore)} ` +
      `RSS for the session; model process peak ${mib(peakRssOf(pid))}`,
  );
}

for (const size of SIZES) {
  const model = join(dir, `${size}.bin`);
  let started = performance.now();
  const bytes = writeSyntheticWhisperModel(model, whisperDimensions[size]);
  console.log(
    `\n${size}: synthetic model ${mib(bytes)} written in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );

  // A deadline that a shared, loaded machine cannot reach: the bench measures speed, it does not enforce it.
  const timeout = { baseMs: 3_600_000, perAudioSecondMs: 0 };
  const decode = { temperatureInc: 0 };
  const engine = createWhisperEngine({ modelPath: model, threads, decode, timeout });
  started = performance.now();
  await engine.transcribe({ pcmPath: warmupPath, language: 'en' }); // starts the process and loads the model
  const pid = engine.pool.pids()[0]!;
  console.log(
    `  engine: first job (process start + model load + decode of 2 s) ${((performance.now() - started) / 1000).toFixed(1)} s; ` +
      `model process peak ${mib(peakRssOf(pid))}`,
  );
  const rssBefore = process.memoryUsage().rss;
  const context = await binding.initWhisper({ filePath: model, useGpu: false });

  // What the model process hands the binding for this job (child.ts), so both sides decode the same.
  const options = whisperDecodeOptions({ threads, decode }, { language: 'en' });
  const directOnce = async (path = pcmPath) => {
    const cpu = ownCpu();
    const perThread = threadCpuOf(process.pid);
    const t = performance.now();
    const result = await context.transcribeData(pcmAudio(readFileSync(path)), options).promise;
    const speed = seconds / ((performance.now() - t) / 1000);
    const busy = busyThreads(perThread, threadCpuOf(process.pid));
    return { speed, cpu: ownCpu() - cpu, text: result.result.trim(), busy };
  };
  const engineOnce = async () => {
    const cpu = cpuSecondsOf(pid);
    const perThread = threadCpuOf(pid);
    const t = performance.now();
    const { text } = await engine.transcribe({ pcmPath, language: 'en' });
    const speed = seconds / ((performance.now() - t) / 1000);
    return { speed, cpu: cpuSecondsOf(pid) - cpu, text, busy: busyThreads(perThread, threadCpuOf(pid)) };
  };
  await directOnce(warmupPath); // the direct side's warm-up, as the engine's first job was
  const speedRatios: number[] = [];
  const cpuRatios: number[] = [];
  const directs: number[] = [];
  const engines: number[] = [];
  let sameOutputs = 0;
  for (let round = 1; round <= ROUNDS; round++) {
    let direct: Awaited<ReturnType<typeof directOnce>>;
    let through: Awaited<ReturnType<typeof engineOnce>>;
    if (round % 2 === 1) {
      direct = await directOnce();
      through = await engineOnce();
    } else {
      through = await engineOnce();
      direct = await directOnce();
    }
    directs.push(direct.speed);
    engines.push(through.speed);
    speedRatios.push(through.speed / direct.speed);
    cpuRatios.push(through.cpu / direct.cpu);
    const same = through.text === direct.text;
    if (same) sameOutputs++;
    console.log(
      `  round ${round}: direct ${direct.speed.toFixed(2)} × real time (${direct.cpu.toFixed(1)} s CPU), engine ` +
        `${through.speed.toFixed(2)} × (${through.cpu.toFixed(1)} s CPU); ratio ${(through.speed / direct.speed).toFixed(3)}, ` +
        `CPU ${(through.cpu / direct.cpu).toFixed(3)}; ` +
        (same
          ? `the same transcript (${direct.text.length} characters)`
          : `DIFFERENT transcripts (direct ${direct.text.length}, engine ${through.text.length} characters)`) +
        `; busy threads direct ${direct.busy}, engine ${through.busy} (maxThreads ${threads}); load ${loadavg()[0]!.toFixed(1)}`,
    );
  }
  const directRss = process.memoryUsage().rss - rssBefore;
  await context.release();
  if (ROUNDS > 0)
    console.log(
      `  ${size}: direct ${median(directs).toFixed(2)} × real time, engine ${median(engines).toFixed(2)} ×; ` +
        `throughput ratio engine/direct ${withInterval(speedRatios)} (target ≥ 0.95); CPU ratio engine/direct ` +
        `${withInterval(cpuRatios)}; model process peak RSS ${mib(peakRssOf(pid))} (direct context in this process: ` +
        `+${mib(directRss)}); the same transcript on both sides in ${sameOutputs} of ${ROUNDS} pairs`,
    );
  if (STREAM_SECONDS > 0) await streamOnce(engine, pid);
  await engine.close();
}
rmSync(dir, { recursive: true, force: true });
