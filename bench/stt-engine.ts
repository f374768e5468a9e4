// `node --import tsx bench/stt-engine.ts`: raw speed of the PocketSphinx engine on the LibriVox readings (5 files,
// ≈ 25 s of speech), as audio seconds per wall second (× real time), in one run on the same audio:
//   baseline — the bare decoder in this thread: each file decoded whole, from memory, one utterance, no worker;
//   1 worker — the engine with a pool of one: file reading, segmentation, worker messages, word mapping;
//   pool     — the engine with os.availableParallelism() workers (SCRIBE_WORKERS), the set submitted
//              BENCH_COPIES × workers times at once so that every worker stays busy.
// Each measurement is the median of BENCH_ROUNDS (3) rounds after a warm-up; also prints the corpus WER as a check.
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Decoder } from '../server/src/transcriptions/engine/pocketsphinx/binding.ts';
import { createPocketSphinxEngine, modelPaths } from '../server/src/transcriptions/engine/pocketsphinx/engine.ts';
import { toEngineWords } from '../server/src/transcriptions/engine/pocketsphinx/words.ts';
import { librivoxRecordings, writePcm } from '../server/src/transcriptions/engine/test-audio.ts';
import { corpusWordErrorRate } from '../server/src/transcriptions/engine/wer.ts';

const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const copies = Number(process.env.BENCH_COPIES ?? 2);
const workers = Number(process.env.SCRIBE_WORKERS ?? availableParallelism());
const dir = mkdtempSync(join(tmpdir(), 'scribe-bench-stt-engine-'));

const recordings = librivoxRecordings();
const paths = await Promise.all(recordings.map((r) => writePcm(join(dir, `${r.id}.raw`), r.pcm)));
const audioSeconds = recordings.reduce((sum, r) => sum + r.seconds, 0);

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** One timed run: × real time, and the corpus WER of its texts (the set, possibly repeated). */
async function timed(seconds: number, run: () => Promise<string[]> | string[]) {
  const started = performance.now();
  const texts = await run();
  const speed = seconds / ((performance.now() - started) / 1000);
  const wer = corpusWordErrorRate(
    recordings.map((r, i) => ({ reference: r.transcript, hypothesis: texts[i % texts.length]! })),
  );
  return { speed, wer: wer.rate };
}

function report(label: string, runs: { speed: number; wer: number }[]): number {
  const speed = median(runs.map((r) => r.speed));
  console.log(
    `${label.padEnd(24)} ${speed.toFixed(2)} × real time  (rounds: ${runs.map((r) => r.speed.toFixed(2)).join(', ')};` +
      ` WER ${(runs[runs.length - 1]!.wer * 100).toFixed(1)} %)`,
  );
  return speed;
}

console.log(`LibriVox set: ${recordings.length} files, ${audioSeconds.toFixed(1)} s of audio; ${rounds} rounds\n`);

// Baseline (the decoder itself, in this thread) and the engine with one worker, alternating round by round so that
// load from elsewhere on the machine affects both alike.
const decoder = Decoder.create(modelPaths());
const single = createPocketSphinxEngine({ workers: 1 });
const bare = () =>
  recordings.map((r) =>
    toEngineWords(decoder.decode(r.pcm).segments, 0)
      .map((w) => w.word)
      .join(' '),
  );
const oneWorker = async () => {
  const texts: string[] = [];
  for (const pcmPath of paths) texts.push((await single.transcribe({ pcmPath, language: 'en' })).text);
  return texts;
};
bare(); // warm-up
await oneWorker();
const baselineRuns = [];
const singleRuns = [];
for (let round = 0; round < rounds; round++) {
  baselineRuns.push(await timed(audioSeconds, bare));
  singleRuns.push(await timed(audioSeconds, oneWorker));
}
decoder.free();
await single.close();
const baseline = report('baseline (bare decoder)', baselineRuns);
const one = report('engine, 1 worker', singleRuns);

// The engine, full pool.
const pool = createPocketSphinxEngine({ workers });
const jobs = Array.from({ length: copies * workers }, () => paths).flat();
const everything = () =>
  Promise.all(jobs.map((pcmPath) => pool.transcribe({ pcmPath, language: 'en' }).then((t) => t.text)));
await everything(); // warm-up
const poolRuns = [];
for (let round = 0; round < rounds; round++) poolRuns.push(await timed(audioSeconds * copies * workers, everything));
await pool.close();
const all = report(`engine, ${workers} workers`, poolRuns);
rmSync(dir, { recursive: true, force: true });

console.log(`\n1 worker / baseline: ${(one / baseline).toFixed(2)}`);
console.log(`${workers} workers / 1 worker: ${(all / one).toFixed(2)} (${workers} workers)`);
