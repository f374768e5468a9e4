// `npm run bench:stream`: real-time streaming through the whole server (production mode, SQLite, the server in this
// process, its stream decoders in worker threads), clients on real WebSockets sending 100 ms chunks at real-time pace.
// The signal: goforward.raw ("go forward ten meters", 2.8 s of real speech) `BENCH_UTTERANCES` (4) times, each
// followed by 1 s of the recording's own room noise (a pause, so each utterance ends in a final by silence).
//   (a) final delay: from sending the chunk that completes a final's span (its `end`) to receiving the final, p50/p95;
//       also from the chunk holding the last word's end (this adds the 0.5 s of silence the endpointer waits for).
//       Baseline: decoding the same utterance whole with the batch decoder once it is complete (what a server
//       without streaming needs after the speaker stops); ratio = streaming delay / batch decode.
//   (b) partial interval: wall time between consecutive partials of one span, p50/p95/max; target ≤ 500 ms.
//   (c) capacity: N sessions at once (N = 1, 2, 4, 6, 8, …, `BENCH_MAX_SESSIONS`), each the whole signal; the largest
//       N whose worst final delay (a) stays ≤ 1 s is what this machine sustains; target ≥ 4.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { createApp } from '../server/src/app.ts';
import { loadConfig } from '../server/src/config.ts';
import { StreamTestClient, type Frame } from '../server/src/streaming/stream-test-client.ts';
import { Decoder } from '../server/src/transcriptions/engine/pocketsphinx/binding.ts';
import { modelPaths } from '../server/src/transcriptions/engine/pocketsphinx/engine.ts';

const UTTERANCES = Number(process.env.BENCH_UTTERANCES ?? 4);
const MAX_SESSIONS = Number(process.env.BENCH_MAX_SESSIONS ?? 12);
const RATE = 16_000;

const speech = readFileSync('/usr/share/pocketsphinx/test/data/goforward.raw');
const noise = speech.subarray(0, 0.4 * RATE * 2); // the room before the speaker starts
const pause = Buffer.concat([noise, noise, noise.subarray(0, 0.2 * RATE * 2)]); // 1.0 s
const signal = Buffer.concat(Array.from({ length: UTTERANCES }, () => [speech, pause]).flat());

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

interface Run {
  finalDelays: number[];
  wordDelays: number[];
  partialGaps: number[];
  texts: string[];
}

async function session(): Promise<Run> {
  const reply = await fetch(`${base}/v3/transcriptions/stream/create`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}` },
  });
  const { stream_url: url } = (await reply.json()) as { stream_url: string };
  const client = await StreamTestClient.connect(url);
  client.send({ type: 'session', language: 'en', sample_rate: RATE });
  await client.next('session.started', { timeoutMs: 30_000 });
  const sent: { end: number; at: number }[] = [];
  await client.stream(signal, { onChunk: (end) => sent.push({ end, at: performance.now() }) });
  try {
    await client.end(60_000);
  } catch (error) {
    throw new Error(`${(error as Error).message}: ${JSON.stringify(client.of('error'))}`, { cause: error });
  }
  if (client.violations.length > 0) throw new Error(client.violations.join('\n'));
  const sentBy = (seconds: number) => sent.find((chunk) => chunk.end >= seconds - 1e-6)?.at;
  const run: Run = { finalDelays: [], wordDelays: [], partialGaps: [], texts: [] };
  let previous: Frame | undefined;
  for (const frame of client.frames) {
    if (frame.type === 'transcript.partial') {
      if (previous?.type === 'transcript.partial' && previous.start === frame.start)
        run.partialGaps.push(frame.receivedAt - previous.receivedAt);
    }
    if (frame.type === 'transcript.final' && frame.text) {
      run.texts.push(frame.text as string);
      // Finals that came by silence (the last one comes with `end`, after the audio ran out).
      const spanSent = sentBy(frame.end as number);
      const lastWord = (frame.words as { end: number }[]).at(-1);
      if (spanSent !== undefined && (frame.end as number) < signal.length / 2 / RATE - 0.05) {
        run.finalDelays.push(frame.receivedAt - spanSent);
        if (lastWord) run.wordDelays.push(frame.receivedAt - sentBy(lastWord.end)!);
      }
    }
    previous = frame;
  }
  return run;
}

const merge = (runs: Run[]): Run => ({
  finalDelays: runs.flatMap((r) => r.finalDelays),
  wordDelays: runs.flatMap((r) => r.wordDelays),
  partialGaps: runs.flatMap((r) => r.partialGaps),
  texts: runs.flatMap((r) => r.texts),
});

// Warm-up: starts the stream workers and lets them create a decoder for each session of the largest round (a
// server reaches that state once it has seen its peak; creating one mid-round would stall its worker for ≈ 0.4 s).
await Promise.all(
  Array.from({ length: MAX_SESSIONS }, async () => {
    const reply = await fetch(`${base}/v3/transcriptions/stream/create`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}` },
    });
    const client = await StreamTestClient.connect(((await reply.json()) as { stream_url: string }).stream_url);
    client.send({ type: 'session', language: 'en', sample_rate: RATE });
    await client.next('session.started', { timeoutMs: 60_000 });
    client.sendAudio(speech);
    await client.end(60_000);
  }),
);
const single = await session();
const correct = single.texts.filter((t) => t === 'go forward ten meters').length;
console.log(
  `signal ${(signal.length / 2 / RATE).toFixed(1)} s, ${UTTERANCES} utterances; ${correct}/${single.texts.length} finals exact`,
);
console.log(
  `(a) final delay, span complete → final: p50 ${ms(quantile(single.finalDelays, 0.5))}, p95 ${ms(quantile(single.finalDelays, 0.95))} (target p50 ≤ 300 ms)`,
);
console.log(
  `    last word's end → final (adds the 0.5 s endpoint silence): p50 ${ms(quantile(single.wordDelays, 0.5))}, p95 ${ms(quantile(single.wordDelays, 0.95))}`,
);
console.log(
  `    baseline: batch decode of the whole utterance ${ms(batchDecode)}; ratio streaming / batch ${(quantile(single.finalDelays, 0.5) / batchDecode).toFixed(2)}`,
);
console.log(
  `(b) partial interval: p50 ${ms(quantile(single.partialGaps, 0.5))}, p95 ${ms(quantile(single.partialGaps, 0.95))}, max ${ms(Math.max(...single.partialGaps))} (target ≤ 500 ms)`,
);

let sustained = 0;
for (const n of [1, 2, 4, 6, 8, 10, 12, 16].filter((k) => k <= MAX_SESSIONS)) {
  const cpuBefore = process.cpuUsage();
  const wallBefore = performance.now();
  const runs = merge(await Promise.all(Array.from({ length: n }, () => session())));
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
await app.close();
rmSync(dataDir, { recursive: true, force: true });
