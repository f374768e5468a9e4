// `npm run bench:stream`: real-time streaming through the whole server (production mode, SQLite, the server in this
// process, its stream decoders in worker threads), clients on real WebSockets sending 100 ms chunks at real-time pace.
// The signal: goforward.raw ("go forward ten meters", 2.8 s of real speech) `BENCH_UTTERANCES` (4) times, each
// followed by 1 s of the recording's own room noise (a pause, so each utterance ends in a final by silence). Sessions
// use the server's default `endpointing` unless `BENCH_ENDPOINTING` (ms) sets one.
//   (a) end of speech → final: from sending the chunk that holds the end of a final's last word to receiving the
//       final, p50/p95 (the endpointing silence plus the final's decode); also from the chunk that completes the
//       final's span (its `end`: the decode alone). Baseline: decoding the same utterance whole with the batch decoder
//       once it is complete (what a server without streaming needs after the speaker stops); ratio = span → final /
//       batch decode.
//   (b) partial interval: wall time between consecutive partials of one span, p50/p95/max.
//   (d) accuracy: the five LibriVox readings in one session, each followed by 1 s of room noise, at real-time pace:
//       corpus WER of the streamed finals (each final's words go to the reading they fall in) next to the batch
//       decoder's WER on the same files, with end of speech → final on this real speech too.
//   (c) capacity: N sessions at once (N = 1, 2, 4, 6, 8, …, `BENCH_MAX_SESSIONS`), each the whole signal; the largest
//       N whose worst final delay (span → final) stays ≤ 1 s is what this machine sustains; target ≥ 4.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import type { StreamServerFrame } from '../client/src/connect-stream.ts';
import { sendPacedAudio } from '../client/src/send-paced-audio.ts';
import { createClient } from '../generated/client/client/index.ts';
import type { StreamTranscriptFinal } from '../generated/client/types.gen.ts';
import { createApp } from '../server/src/app.ts';
import { loadConfig } from '../server/src/config.ts';
import { connectCheckedStream } from '../server/src/test-support/checked-stream.ts';
import { Decoder } from '../server/src/transcriptions/engine/pocketsphinx/binding.ts';
import { modelPaths } from '../server/src/transcriptions/engine/pocketsphinx/engine.ts';
import { toEngineWords } from '../server/src/transcriptions/engine/pocketsphinx/words.ts';
import { librivoxRecordings } from '../server/src/transcriptions/engine/test-audio.ts';
import { corpusWordErrorRate } from '../server/src/transcriptions/engine/wer.ts';
import { librivoxWav, transcribeAsync } from './batch-task.ts';

const UTTERANCES = Number(process.env.BENCH_UTTERANCES ?? 4);
const MAX_SESSIONS = Number(process.env.BENCH_MAX_SESSIONS ?? 12);
const RATE = 16_000;
const ENDPOINTING =
  process.env.BENCH_ENDPOINTING === undefined ? {} : { endpointing: Number(process.env.BENCH_ENDPOINTING) };

const speech = readFileSync('/usr/share/pocketsphinx/test/data/goforward.raw');
const noise = speech.subarray(0, 0.4 * RATE * 2); // the room before the speaker starts
const pause = Buffer.concat([noise, noise, noise.subarray(0, 0.2 * RATE * 2)]); // 1.0 s
const signal = Buffer.concat(Array.from({ length: UTTERANCES }, () => [speech, pause]).flat());
const readings = librivoxRecordings();
const readingSignal = Buffer.concat(
  readings.flatMap((r) => [Buffer.from(r.pcm.buffer, r.pcm.byteOffset, r.pcm.byteLength), pause]),
);
/** Where each reading starts in readingSignal, in seconds (each is followed by the 1 s pause). */
const readingStarts = readings.map((_, i) => readings.slice(0, i).reduce((sum, r) => sum + r.seconds + 1, 0));

const quantile = (values: number[], q: number) => {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
};
const ms = (value: number) => `${value.toFixed(0)} ms`;

// Baseline: the batch decoder on one whole utterance (the same audio as one span), median of 5.
const decoder = Decoder.create(modelPaths());
const utterance = new Int16Array(speech.buffer, speech.byteOffset, speech.length / 2);
const batchTimes: number[] = [];
for (let i = 0; i < 6; i++) {
  const started = performance.now();
  decoder.decode(utterance);
  if (i > 0) batchTimes.push(performance.now() - started);
}
const batchWer = corpusWordErrorRate(
  readings.map((r) => ({
    reference: r.transcript,
    hypothesis: toEngineWords(decoder.decode(r.pcm).segments, 0)
      .map((w) => w.word)
      .join(' '),
  })),
).rate;
decoder.free();
const batchDecode = quantile(batchTimes, 0.5);

const dataDir = mkdtempSync(join(tmpdir(), 'scribe-bench-stream-'));
const app = await createApp(
  loadConfig({
    ...process.env,
    NODE_ENV: 'production',
    SCRIBE_DATA_DIR: join(dataDir, 'data'),
    SCRIBE_RATE_LIMIT_RPS: '0',
    SCRIBE_STREAM_MAX_SESSIONS: String(MAX_SESSIONS + 1),
    LOG_LEVEL: 'silent',
  }),
  { logger: pino({ level: 'silent' }) },
);
await new Promise<void>((resolve) => app.server.listen(0, '127.0.0.1', resolve));
const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
const { api_key: key } = await app.services.accounts.create({ balance: 100_000 });
const client = createClient({ baseUrl: base, auth: () => key! });
const SESSION = { language: 'en', sample_rate: RATE, ...ENDPOINTING };

interface Run {
  finalDelays: number[];
  wordDelays: number[];
  partialGaps: number[];
  texts: string[];
  finals: StreamTranscriptFinal[];
}

async function session(audio = signal): Promise<Run> {
  // Arrival times are taken as each frame comes in, before anything else runs on it.
  const arrivals: { frame: StreamServerFrame; at: number }[] = [];
  const connection = await connectCheckedStream(client, {
    session: SESSION,
    frameTimeoutMs: 30_000,
    onFrame: (frame) => arrivals.push({ frame, at: performance.now() }),
  });
  const sent: { end: number; at: number }[] = [];
  await sendPacedAudio(connection, audio, {
    sampleRate: RATE,
    onChunk: (end) => sent.push({ end, at: performance.now() }),
  });
  try {
    await connection.end();
  } catch (error) {
    throw new Error(`${(error as Error).message}: ${JSON.stringify(connection.socket.of('error'))}`, { cause: error });
  }
  if (connection.violations.length > 0) throw new Error(connection.violations.join('\n'));
  const sentBy = (seconds: number) => sent.find((chunk) => chunk.end >= seconds - 1e-6)?.at;
  const run: Run = { finalDelays: [], wordDelays: [], partialGaps: [], texts: [], finals: [] };
  let previous: { frame: StreamServerFrame; at: number } | undefined;
  for (const arrival of arrivals) {
    const { frame, at } = arrival;
    if (frame.type === 'transcript.partial') {
      if (previous?.frame.type === 'transcript.partial' && previous.frame.start === frame.start)
        run.partialGaps.push(at - previous.at);
    }
    if (frame.type === 'transcript.final' && frame.text) {
      run.texts.push(frame.text);
      run.finals.push(frame);
      // Finals that came by silence (the last one comes with `end`, after the audio ran out).
      const spanSent = sentBy(frame.end);
      const lastWord = frame.words?.at(-1);
      if (spanSent !== undefined && frame.end < audio.length / 2 / RATE - 0.05) {
        run.finalDelays.push(at - spanSent);
        if (lastWord) run.wordDelays.push(at - sentBy(lastWord.end)!);
      }
    }
    previous = arrival;
  }
  return run;
}

async function sequentially(count: number, run: () => Promise<Run>): Promise<Run[]> {
  const runs: Run[] = [];
  for (let i = 0; i < count; i++) runs.push(await run());
  return runs;
}

const merge = (runs: Run[]): Run => ({
  finalDelays: runs.flatMap((r) => r.finalDelays),
  wordDelays: runs.flatMap((r) => r.wordDelays),
  partialGaps: runs.flatMap((r) => r.partialGaps),
  texts: runs.flatMap((r) => r.texts),
  finals: runs.flatMap((r) => r.finals),
});

// Warm-up: starts the stream workers and lets them create a decoder for each session of the largest round (a
// server reaches that state once it has seen its peak; creating one mid-round would stall its worker for ≈ 0.4 s).
await Promise.all(
  Array.from({ length: MAX_SESSIONS }, async () => {
    const connection = await connectCheckedStream(client, { session: SESSION, frameTimeoutMs: 60_000 });
    connection.sendAudio(speech);
    await connection.end();
  }),
);
// One session at a time, `BENCH_SINGLE_RUNS` (3) of them in a row: enough finals for a median on a noisy machine.
const single = merge(await sequentially(Number(process.env.BENCH_SINGLE_RUNS ?? 3), () => session()));
const started = await (async () => {
  const connection = await connectCheckedStream(client, { session: SESSION, frameTimeoutMs: 30_000 });
  await connection.end();
  return connection;
})();
const correct = single.texts.filter((t) => t === 'go forward ten meters').length;
console.log(
  `endpointing ${JSON.stringify(started.config.endpointing)} ms; signal ${(signal.length / 2 / RATE).toFixed(1)} s, ${UTTERANCES} utterances, ${single.wordDelays.length} finals by silence in ${process.env.BENCH_SINGLE_RUNS ?? 3} sessions one after the other; ${correct}/${single.texts.length} finals exact`,
);
console.log(
  `(a) end of speech (last word's end) → final: p50 ${ms(quantile(single.wordDelays, 0.5))}, p95 ${ms(quantile(single.wordDelays, 0.95))} (target p50 ≤ 400 ms)`,
);
console.log(
  `    span complete → final (the decode): p50 ${ms(quantile(single.finalDelays, 0.5))}, p95 ${ms(quantile(single.finalDelays, 0.95))}`,
);
console.log(
  `    baseline: batch decode of the whole utterance ${ms(batchDecode)}; ratio streaming / batch ${(quantile(single.finalDelays, 0.5) / batchDecode).toFixed(2)}`,
);
console.log(
  `(b) partial interval: p50 ${ms(quantile(single.partialGaps, 0.5))}, p95 ${ms(quantile(single.partialGaps, 0.95))}, max ${ms(Math.max(...single.partialGaps))} (target p95 ≤ 300 ms)`,
);

// (d) The LibriVox readings streamed in one session; each final's words go to the reading they fall in.
const read = await session(readingSignal);
const heard: string[][] = readings.map(() => []);
for (const final of read.finals) {
  for (const word of final.words ?? []) {
    // A word belongs to the last reading that starts before it (half the pause before it counts too).
    const index = readingStarts.findLastIndex((start) => word.start >= start - 0.5);
    heard[Math.max(0, index)]!.push(word.word);
  }
}
const streamedWer = corpusWordErrorRate(
  readings.map((r, i) => ({ reference: r.transcript, hypothesis: heard[i]!.join(' ') })),
).rate;
console.log(
  `(d) LibriVox, ${readings.length} readings in one session: streamed WER ${(100 * streamedWer).toFixed(1)} %, batch WER ${(100 * batchWer).toFixed(1)} %; ${read.finals.length} finals; end of speech → final p50 ${ms(quantile(read.wordDelays, 0.5))}, p95 ${ms(quantile(read.wordDelays, 0.95))}; partial interval p95 ${ms(quantile(read.partialGaps, 0.95))}`,
);

let sustained = 0;
for (const n of [1, 2, 4, 6, 8, 10, 12, 16].filter((k) => k <= MAX_SESSIONS)) {
  const cpuBefore = process.cpuUsage();
  const wallBefore = performance.now();
  const runs = merge(await Promise.all(Array.from({ length: n }, () => session(signal))));
  const cpu = process.cpuUsage(cpuBefore);
  const cores = (cpu.user + cpu.system) / 1000 / (performance.now() - wallBefore);
  const load = loadavg()[0]!.toFixed(1);
  const worst = Math.max(...runs.finalDelays);
  const exact = runs.texts.filter((t) => t === 'go forward ten meters').length;
  console.log(
    `(c) ${String(n).padStart(2)} sessions: final delay p50 ${ms(quantile(runs.finalDelays, 0.5))}, p95 ${ms(quantile(runs.finalDelays, 0.95))}, worst ${ms(worst)}; partial gap p95 ${ms(quantile(runs.partialGaps, 0.95))}; ${exact}/${runs.texts.length} finals exact; this process used ${cores.toFixed(2)} cores (${((100 * cores) / n).toFixed(0)} % of a core per session), load average ${load}`,
  );
  if (worst > 1000) break;
  sustained = n;
}
console.log(`(c) sustained: ${sustained} simultaneous real-time sessions with every final ≤ 1 s (target ≥ 4)`);

// (e) The same LOADED_SESSIONS sessions while async transcriptions keep every batch decoder busy (2 per decoder in
// flight, a new one as each ends), against those sessions alone, in this run: the batch decoders run at
// SCRIBE_WORKER_NICE, so a live stream's decoder should not wait behind them.
const LOADED_SESSIONS = Math.min(4, MAX_SESSIONS); // the server takes MAX_SESSIONS + 1 at once
const readingsWav = librivoxWav();
const loadedRound = async (loaded: boolean): Promise<Run> => {
  let loading = loaded;
  const decoders = app.config.transcription.workers;
  const load = Array.from({ length: loaded ? 2 * decoders : 0 }, async () => {
    while (loading) await transcribeAsync(base, key!, readingsWav);
  });
  if (loaded) await new Promise((resolve) => setTimeout(resolve, 2000)); // the decoders are busy by then
  try {
    return merge(await Promise.all(Array.from({ length: LOADED_SESSIONS }, () => session(signal))));
  } finally {
    loading = false;
    await Promise.all(load);
  }
};
const alone = await loadedRound(false);
const underLoad = await loadedRound(true);
const summary = (run: Run) =>
  `p50 ${ms(quantile(run.finalDelays, 0.5))}, p95 ${ms(quantile(run.finalDelays, 0.95))}, worst ${ms(Math.max(...run.finalDelays))}`;
console.log(
  `(e) ${LOADED_SESSIONS} sessions, final delay: alone ${summary(alone)}; with ${2 * app.config.transcription.workers} ` +
    `async tasks keeping the ${app.config.transcription.workers} batch decoders busy (SCRIBE_WORKER_NICE=` +
    `${app.config.transcription.workerNice}) ${summary(underLoad)}; p95 under load / alone ` +
    `${(quantile(underLoad.finalDelays, 0.95) / quantile(alone.finalDelays, 0.95)).toFixed(2)}`,
);
await app.close();
rmSync(dataDir, { recursive: true, force: true });
