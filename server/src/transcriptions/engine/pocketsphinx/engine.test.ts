// The PocketSphinx engine end to end on real recordings, through its pool of 2 worker threads: exact words and times on
// goforward.raw, WER on the LibriVox readings, a long file made of those readings (segmented, WER close to per-file),
// two files at once, terms, cancellation, a crashed worker, bad input, languages and closing.
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { EngineError, type EngineTranscript } from '../engine.ts';
import { SAMPLE_RATE } from '../pcm-file.ts';
import { GO_FORWARD, joinWithPauses, librivoxRecordings, writePcm, type Recording } from '../test-audio.ts';
import { corpusWordErrorRate, wordErrorRate } from '../wer.ts';
import { createPocketSphinxEngine, type PocketSphinxEngine } from './engine.ts';
import { rejectionOf } from '../../../test-support/rejection.ts';

const test = suite('pocketsphinx engine');

let dir: string;
let engine: PocketSphinxEngine;
let recordings: (Recording & { path: string })[];
let long: { path: string; reference: string; starts: number[]; seconds: number };
let perFileWer: number;

test.before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pocketsphinx-engine-'));
  engine = createPocketSphinxEngine({ workers: 2 });
  recordings = await Promise.all(
    librivoxRecordings().map(async (r) => ({ ...r, path: await writePcm(join(dir, `${r.id}.raw`), r.pcm) })),
  );
  const joined = joinWithPauses(
    recordings.map((r) => r.pcm),
    [0.5, 1.5, 0.4, 2],
  );
  long = {
    path: await writePcm(join(dir, 'long.raw'), joined.pcm),
    reference: recordings.map((r) => r.transcript).join(' '),
    starts: joined.starts.map((s) => s / SAMPLE_RATE),
    seconds: joined.pcm.length / SAMPLE_RATE,
  };
});

test.after(async () => {
  await engine.close();
  await rm(dir, { recursive: true, force: true });
});

test('languages: English in any region or case; nothing else', async () => {
  assert.is(engine.kind, 'pocketsphinx');
  assert.equal(engine.languages, ['en']);
  for (const tag of ['en', 'en-US', 'en-us', 'EN_gb', 'en-Latn-AU']) assert.ok(engine.supports(tag), tag);
  for (const tag of ['de', 'fr-FR', '', 'auto', 'english', 'e']) assert.not.ok(engine.supports(tag), tag);
  const error = await rejectionOf(engine.transcribe({ pcmPath: GO_FORWARD.path, language: 'de' }), EngineError);
  assert.is(error.code, 'unsupported_language');
  assert.match(error.message, /English only/);
});

test('goforward.raw: exact words, word starts within 0.1 s, confidences, progress up to 1', async () => {
  const progress: number[] = [];
  const result = await engine.transcribe(
    { pcmPath: GO_FORWARD.path, language: 'en-US' },
    { onProgress: (f) => progress.push(f) },
  );
  assert.is(result.text, GO_FORWARD.text);
  assert.is(result.duration, 2.79);
  assert.equal(
    result.words.map((w) => w.word),
    GO_FORWARD.text.split(' '),
  );
  result.words.forEach((w, i) => {
    assert.ok(Math.abs(w.start - GO_FORWARD.starts[i]!) <= 0.1, `${w.word} starts at ${w.start}`);
    assert.ok(w.end > w.start);
    assert.is(Math.round(w.start * 100) / 100, w.start);
    assert.ok(w.confidence !== undefined && w.confidence >= 0 && w.confidence <= 1, `${w.word}: ${w.confidence}`);
  });
  assertProgress(progress);
});

function assertProgress(progress: number[]): void {
  assert.ok(progress.length >= 1);
  for (let i = 1; i < progress.length; i++) assert.ok(progress[i]! > progress[i - 1]!, JSON.stringify(progress));
  assert.ok(progress[0]! > 0);
  assert.is(progress[progress.length - 1], 1);
}

test('LibriVox readings: corpus WER ≤ 35 %', async () => {
  const results = await Promise.all(recordings.map((r) => engine.transcribe({ pcmPath: r.path, language: 'en' })));
  const wer = corpusWordErrorRate(
    recordings.map((r, i) => ({ reference: r.transcript, hypothesis: results[i]!.text })),
  );
  perFileWer = wer.rate;
  console.log(`  LibriVox per-file WER ${(wer.rate * 100).toFixed(1)} % (${wer.errors}/${wer.referenceWords})`);
  assert.ok(wer.rate <= 0.35, `WER ${wer.rate}`);
  results.forEach((result, i) => assert.is(result.duration, Math.round(recordings[i]!.seconds * 100) / 100));
});

test('a long file of the readings joined by pauses is segmented, times are shifted, WER stays close', async () => {
  const progress: number[] = [];
  const result = await engine.pool.run({ pcmPath: long.path }, { onProgress: (f) => progress.push(f) });
  assertProgress(progress);
  assert.ok(result.segments.length >= 2, `${result.segments.length} segments`);
  for (const s of result.segments) assert.ok(s.end - s.start <= 20 * SAMPLE_RATE);
  const words = result.words;
  for (let i = 1; i < words.length; i++) assert.ok(words[i]!.start >= words[i - 1]!.start);
  assert.ok(words[words.length - 1]!.end <= long.seconds + 0.01);
  // "himself" ends the last reading, which starts after 25 s: its time comes from the segment offset
  const last = words[words.length - 1]!;
  assert.is(last.word, 'himself');
  assert.ok(last.start > long.starts[4]! + 2 && last.end <= long.seconds, JSON.stringify(last));

  const text = words.map((w) => w.word).join(' ');
  const wer = wordErrorRate(long.reference, text).rate;
  console.log(
    `  long file ${long.seconds.toFixed(1)} s, ${result.segments.length} segments: WER ${(wer * 100).toFixed(1)} %` +
      ` (per-file ${(perFileWer * 100).toFixed(1)} %)`,
  );
  assert.ok(wer <= perFileWer + 0.05, `long WER ${wer} vs per-file ${perFileWer}`);
});

test('two transcriptions at once on the 2-worker pool both finish correctly', async () => {
  const last = recordings[4]!;
  const both = Promise.all([
    engine.transcribe({ pcmPath: GO_FORWARD.path, language: 'en' }),
    engine.transcribe({ pcmPath: last.path, language: 'en' }),
  ]);
  assert.equal(engine.pool.stats(), { busy: 2, queued: 0 });
  const [a, b] = await both;
  assert.is(a.text, GO_FORWARD.text);
  assert.ok(wordErrorRate(last.transcript, b.text).rate <= 0.35, b.text);
});

test('terms bias this request only', async () => {
  const dashwood = recordings[0]!;
  const withTerms = await engine.transcribe({ pcmPath: dashwood.path, language: 'en', terms: ['Dashwood', 'Zzqxv'] });
  assert.match(withTerms.text, /john dashwood/);
  // both workers, without terms: no trace of the previous request's bias
  const without = await Promise.all([
    engine.transcribe({ pcmPath: dashwood.path, language: 'en' }),
    engine.transcribe({ pcmPath: dashwood.path, language: 'en', terms: [] }),
  ]);
  for (const r of without) assert.not.match(r.text, /dashwood/);
  const detailed = await engine.pool.run({ pcmPath: GO_FORWARD.path, terms: ['Dashwood', 'Zzqxv'] });
  assert.equal([detailed.boostedTerms, detailed.ignoredTerms], [['dashwood'], ['zzqxv']]);
  assert.is(detailed.words.map((w) => w.word).join(' '), GO_FORWARD.text);
});

test('cancelling via AbortSignal rejects promptly and frees the worker after the current segment', async () => {
  const controller = new AbortController();
  const progress: number[] = [];
  const running = engine.transcribe(
    { pcmPath: long.path, language: 'en' },
    { signal: controller.signal, onProgress: (f) => progress.push(f) },
  );
  // how the worker ends this job: 'cancelled' (stopped between segments) or 'done' (decoded everything)
  const [worker] = engine.pool.busyWorkers();
  const ending = new Promise<string>((resolve) =>
    worker!.on('message', (m: { type: string }) => {
      if (m.type === 'cancelled' || m.type === 'done') resolve(m.type);
    }),
  );
  await new Promise((resolve) => setTimeout(resolve, 300));
  const abortedAt = performance.now();
  controller.abort();
  const error = await rejectionOf(running, EngineError);
  const latency = performance.now() - abortedAt;
  assert.is(error.code, 'cancelled');
  assert.ok(latency < 100, `rejected ${latency.toFixed(0)} ms after abort`);
  const seen = progress.length;
  // the worker stops at the next segment boundary instead of decoding the rest, then takes new jobs
  assert.is(await ending, 'cancelled');
  assert.equal(engine.pool.stats(), { busy: 0, queued: 0 });
  assert.is(progress.length, seen, 'no progress after the rejection');

  // already aborted: rejected without running; a queued job that is aborted leaves the queue
  const aborted = await rejectionOf(
    engine.transcribe({ pcmPath: GO_FORWARD.path, language: 'en' }, { signal: AbortSignal.abort() }),
    EngineError,
  );
  assert.is(aborted.code, 'cancelled');
  const blockers = [engine.transcribe({ pcmPath: recordings[0]!.path, language: 'en' })];
  blockers.push(engine.transcribe({ pcmPath: recordings[3]!.path, language: 'en' }));
  const queuedController = new AbortController();
  const queued = engine.transcribe({ pcmPath: GO_FORWARD.path, language: 'en' }, { signal: queuedController.signal });
  assert.equal(engine.pool.stats(), { busy: 2, queued: 1 });
  queuedController.abort();
  assert.is((await rejectionOf(queued, EngineError)).code, 'cancelled');
  assert.equal(engine.pool.stats(), { busy: 2, queued: 0 });
  await Promise.all(blockers);
});

test('a worker that dies mid-job rejects that job; the pool replaces it and serves the next jobs', async () => {
  const running = engine.transcribe({ pcmPath: long.path, language: 'en' });
  const [worker] = engine.pool.busyWorkers();
  assert.ok(worker);
  await new Promise((resolve) => setTimeout(resolve, 200));
  await worker.terminate();
  const error = await rejectionOf(running, EngineError);
  assert.is(error.code, 'worker_crashed');
  assert.ok(error.retryable);
  assert.match(error.message, /PocketSphinx worker stopped unexpectedly/);
  const after: EngineTranscript[] = await Promise.all([
    engine.transcribe({ pcmPath: GO_FORWARD.path, language: 'en' }),
    engine.transcribe({ pcmPath: GO_FORWARD.path, language: 'en' }),
  ]);
  for (const r of after) assert.is(r.text, GO_FORWARD.text);
});

test('bad input: a missing file is invalid_audio; an empty file is an empty transcript', async () => {
  const missing = await rejectionOf(engine.transcribe({ pcmPath: join(dir, 'nope.raw'), language: 'en' }), EngineError);
  assert.is(missing.code, 'invalid_audio');
  assert.match(missing.message, /nope\.raw/);
  const empty = join(dir, 'empty.raw');
  await writeFile(empty, Buffer.alloc(0));
  const progress: number[] = [];
  const result = await engine.transcribe({ pcmPath: empty, language: 'en' }, { onProgress: (f) => progress.push(f) });
  assert.equal(result, { text: '', duration: 0, words: [] });
  assert.equal(progress, [1]);
});

test('missing model files are reported at creation', () => {
  try {
    createPocketSphinxEngine({ modelDir: '/nonexistent/model' });
    assert.unreachable('should have thrown');
  } catch (error) {
    assert.instance(error, EngineError);
    assert.is((error as EngineError).code, 'engine_unavailable');
    // The message is shown to API clients: the fix, not the server's paths; the paths are in the cause, for logs.
    assert.match((error as EngineError).message, /apt-get install libpocketsphinx3 pocketsphinx-en-us/);
    assert.not.match((error as EngineError).message, /nonexistent/);
    assert.match(((error as EngineError).cause as Error).message, /\/nonexistent\/model\/en-us/);
  }
});

/** The nice value of each thread of this process, by thread id (Linux: field 19 of /proc/self/task/<tid>/stat). */
async function threadNiceValues(): Promise<Map<number, number>> {
  const values = new Map<number, number>();
  for (const tid of await readdir('/proc/self/task')) {
    const stat = await readFile(`/proc/self/task/${tid}/stat`, 'utf8').catch(() => undefined); // a thread that ended
    // The fields after the thread's name (in parentheses, which may hold spaces) start with field 3, the state.
    if (stat) values.set(Number(tid), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19 - 3]));
  }
  return values;
}

test('`nice` lowers the priority of the decoder threads only, not of the server thread', async () => {
  const before = await threadNiceValues();
  const niced = createPocketSphinxEngine({ workers: 2, nice: 7 });
  try {
    const transcript = await niced.transcribe({ pcmPath: GO_FORWARD.path, language: 'en' });
    assert.is(transcript.text, GO_FORWARD.text, 'a lowered decoder still decodes');
    await Promise.all([GO_FORWARD, GO_FORWARD].map((f) => niced.transcribe({ pcmPath: f.path, language: 'en' })));
    const after = await threadNiceValues();
    const lowered = [...after].filter(([tid, nice]) => nice === 7 && !before.has(tid));
    assert.is(lowered.length, 2, `one thread per worker at nice 7: ${JSON.stringify([...after])}`);
    assert.is(after.get(process.pid), before.get(process.pid), "the server's own thread keeps its priority");
    assert.ok(
      [...before].every(([tid, nice]) => !after.has(tid) || after.get(tid) === nice),
      'no other thread changed',
    );
  } finally {
    await niced.close();
  }
});

test('after close, transcribe rejects with engine_closed', async () => {
  const other = createPocketSphinxEngine({ workers: 1 });
  const pending = rejectionOf(other.transcribe({ pcmPath: GO_FORWARD.path, language: 'en' }), EngineError);
  await other.close();
  assert.is((await pending).code, 'engine_closed');
  assert.is(
    (await rejectionOf(other.transcribe({ pcmPath: GO_FORWARD.path, language: 'en' }), EngineError)).code,
    'engine_closed',
  );
});

test.run();
