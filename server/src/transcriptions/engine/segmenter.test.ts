// The segmenter on synthetic signals (loud noise bursts as "speech", quiet noise as pauses), where the right cuts are
// known exactly, and on the LibriVox readings joined by pauses: cuts fall inside pauses, segments stay under the target
// unless speech runs on, silence-only audio gives no segments, and chunked energy measurement equals one-shot.
import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { SAMPLE_RATE } from './pcm-file.ts';
import { EnergyMeter, measureEnergy, planSegments, type Segment } from './segmenter.ts';
import { joinWithPauses, librivoxRecordings, noise, writePcm } from './test-audio.ts';

const test = suite('segmenter');

/** Speech (loud) and pause (quiet) stretches in seconds, alternating, starting with speech when `speechFirst`. */
function signal(stretches: number[], speechFirst = true): Int16Array {
  const parts = stretches.map((seconds, i) => noise(seconds, (i % 2 === 0) === speechFirst ? 3000 : 30, i + 7));
  return joinWithPauses(parts, []).pcm;
}

function plan(pcm: Int16Array, options = {}): Segment[] {
  const meter = new EnergyMeter();
  meter.push(pcm);
  return planSegments(meter.finish(), pcm.length, options);
}

const seconds = (segments: Segment[]) =>
  segments.map((s) => [Math.round((s.start / SAMPLE_RATE) * 100) / 100, Math.round((s.end / SAMPLE_RATE) * 100) / 100]);

test('silence only, or nothing at all, gives no segments', () => {
  assert.equal(plan(noise(10, 30)), []);
  assert.equal(plan(new Int16Array(0)), []);
  assert.equal(plan(new Int16Array(16000)), []); // digital silence
});

test('a short pause stays inside a segment; a long pause is cut and trimmed to the padding', () => {
  // speech 0–3, pause 3–3.2 (shorter than minPause), speech 3.2–6, pause 6–9 (long), speech 9–12
  const segments = plan(signal([3, 0.2, 2.8, 3, 3]));
  assert.equal(seconds(segments), [
    [0, 6.25],
    [8.75, 12],
  ]);
});

test('short pauses are cut (in their middle) only when the segment would otherwise pass the target', () => {
  // five 5 s bursts separated by 0.5 s pauses: three fit in 20 s, the fourth would not → cut in the 3rd pause
  const pcm = signal([5, 0.5, 5, 0.5, 5, 0.5, 5, 0.5, 5]);
  const segments = plan(pcm);
  assert.equal(seconds(segments), [
    [0, 16.25],
    [16.25, 27],
  ]);
  // contiguous: nothing lost at the cut
  assert.is(segments[0]!.end, segments[1]!.start);
});

test('continuous speech longer than hardMax is cut inside speech, at its quietest point', () => {
  const loud = noise(70, 3000, 3);
  // a slightly quieter 100 ms at 25 s (still "speech") is where the first cut should go
  const dip = noise(0.1, 1500, 4);
  loud.set(dip, 25 * SAMPLE_RATE);
  const segments = plan(loud);
  assert.ok(segments.length >= 3);
  for (const segment of segments) assert.ok(segment.end - segment.start <= 30 * SAMPLE_RATE);
  const firstCut = segments[0]!.end / SAMPLE_RATE;
  assert.ok(Math.abs(firstCut - 25.05) < 0.1, `first cut at ${firstCut}`);
  assert.is(segments[segments.length - 1]!.end, loud.length);
});

test('segments are ordered, disjoint and inside the file', () => {
  const pcm = signal([0.7, 1.2, 3, 0.35, 4, 5, 22, 0.6, 1], false);
  const segments = plan(pcm);
  let previousEnd = 0;
  for (const s of segments) {
    assert.ok(s.start >= previousEnd && s.end > s.start && s.end <= pcm.length, JSON.stringify(s));
    previousEnd = s.end;
  }
});

test('measuring a file in chunks gives the same energies as measuring it at once', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'segmenter-'));
  try {
    const pcm = signal([1.23, 0.77, 2.5]);
    const path = await writePcm(join(dir, 'a.raw'), pcm);
    const file = await open(path, 'r');
    let chunks = 0;
    const chunked = await measureEnergy(file, pcm.length, { chunkSeconds: 0.333, between: () => void chunks++ });
    await file.close();
    const meter = new EnergyMeter();
    meter.push(pcm);
    assert.equal(Array.from(chunked), Array.from(meter.finish()));
    assert.ok(chunks >= 13, `${chunks} chunks`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('LibriVox readings joined by pauses: every cut falls inside a pause', () => {
  const recordings = librivoxRecordings();
  const pauses = [0.5, 1.5, 0.4, 2];
  const { pcm, starts } = joinWithPauses(
    recordings.map((r) => r.pcm),
    pauses,
  );
  const segments = plan(pcm);
  assert.ok(segments.length >= 2, `${segments.length} segments`);
  const pauseRanges = recordings.slice(0, -1).map((r, i) => [starts[i]! + r.pcm.length, starts[i + 1]!] as const);
  for (const s of segments) assert.ok(s.end - s.start <= 20 * SAMPLE_RATE);
  for (let i = 0; i < segments.length - 1; i++) {
    const cutEnd = segments[i]!.end;
    const nextStart = segments[i + 1]!.start;
    // (the readings have a little silence of their own at both ends)
    const margin = 0.3 * SAMPLE_RATE;
    const inPause = pauseRanges.some(([from, to]) => cutEnd >= from - margin && nextStart <= to + margin);
    assert.ok(inPause, `cut ${cutEnd / SAMPLE_RATE}–${nextStart / SAMPLE_RATE} s is not inside a pause`);
  }
  // the long pauses (1.5 s, 2 s) always end a segment
  for (const i of [1, 3]) {
    const [from, to] = pauseRanges[i]!;
    assert.ok(segments.some((s) => s.end >= from && s.end <= to));
  }
});

test.run();
