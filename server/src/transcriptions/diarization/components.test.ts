// The building blocks of diarization on synthetic signals with known answers: framing and energies, MFCCs, voice
// activity, Gaussian statistics and BIC, change detection and clustering on Gaussian data from a seeded generator.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { detectChanges } from './change-detection.ts';
import { clusterSegments } from './clustering.ts';
import { CovarianceWorkspace, GaussianStats, deltaBic } from './gaussian.ts';
import { MFCC_DIMENSIONS, MfccExtractor, frameCount, frameEnergies } from './mfcc.ts';
import { detectSpeech } from './voice-activity.ts';

/** Seeded standard normal generator (LCG + Box–Muller). */
function normal(seed: number): () => number {
  let state = seed >>> 0 || 1;
  const uniform = () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return (state + 0.5) / 4294967296;
  };
  return () => Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform());
}

/** `count` frames of `d` values: mean `shift` on every dimension, standard deviation `scale`. */
function gaussianFrames(random: () => number, count: number, d: number, shift: number, scale = 1): Float32Array {
  const data = new Float32Array(count * d);
  for (let i = 0; i < data.length; i++) data[i] = shift + scale * random();
  return data;
}

function statsOf(data: Float32Array, d: number): GaussianStats {
  const stats = new GaussianStats(d);
  stats.addRange(data, 0, data.length / d);
  return stats;
}

const test = suite('diarization components');

test('framing: 25 ms frames every 10 ms', () => {
  assert.is(frameCount(0), 0);
  assert.is(frameCount(399), 0);
  assert.is(frameCount(400), 1);
  assert.is(frameCount(559), 1);
  assert.is(frameCount(560), 2);
  assert.is(frameCount(16000), 98);
});

test('energies: silence is 0 dB, a full-scale square wave about 90 dB, DC is ignored', () => {
  const pcm = new Int16Array(1600);
  for (let i = 800; i < 1600; i++) pcm[i] = (i >> 4) % 2 ? 32767 : -32767;
  const energies = frameEnergies(pcm);
  assert.is(energies[0], 0);
  assert.ok(Math.abs(energies[energies.length - 1]! - 90.3) < 0.5, `${energies[energies.length - 1]}`);
  assert.is(frameEnergies(new Int16Array(800).fill(5000))[0], 0);
});

test('MFCCs: 12 finite coefficients, deterministic, different for a tone and for noise, finite on silence', () => {
  const random = normal(1);
  const tone = new Int16Array(400);
  const noise = new Int16Array(400);
  for (let i = 0; i < 400; i++) {
    tone[i] = Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / 16000));
    noise[i] = Math.round(3000 * random());
  }
  const extractor = new MfccExtractor();
  const out = new Float32Array(3 * MFCC_DIMENSIONS);
  extractor.compute(tone, 0, out, 0);
  extractor.compute(tone, 0, out, MFCC_DIMENSIONS);
  extractor.compute(noise, 0, out, 2 * MFCC_DIMENSIONS);
  assert.ok(out.every(Number.isFinite));
  assert.equal(out.slice(0, MFCC_DIMENSIONS), out.slice(MFCC_DIMENSIONS, 2 * MFCC_DIMENSIONS));
  let distance = 0;
  for (let k = 0; k < MFCC_DIMENSIONS; k++) distance += (out[k]! - out[2 * MFCC_DIMENSIONS + k]!) ** 2;
  assert.ok(Math.sqrt(distance) > 5, `tone and noise too close: ${Math.sqrt(distance)}`);
  const silent = new Float32Array(MFCC_DIMENSIONS);
  extractor.compute(new Int16Array(400), 0, silent, 0);
  assert.ok(silent.every(Number.isFinite));
});

test('voice activity: a loud burst between silences is speech, a short click is not', () => {
  const random = normal(2);
  const pcm = new Int16Array(16000 * 3);
  for (let i = 16000; i < 32000; i++) pcm[i] = Math.round(3000 * random()); // 1–2 s
  for (let i = 0; i < pcm.length; i++) pcm[i]! += Math.round(20 * random()); // background noise
  for (let i = 40000; i < 40160; i++) pcm[i] = 20000; // 10 ms click at 2.5 s (DC within a frame)
  for (let i = 40000; i < 40160; i += 2) pcm[i] = -20000;
  const speech = detectSpeech(frameEnergies(pcm));
  const speechFrames = [...speech.keys()].filter((t) => speech[t]);
  assert.ok(speechFrames.length > 0);
  assert.ok(Math.abs(speechFrames[0]! - 98) <= 3, `first speech frame ${speechFrames[0]}`);
  assert.ok(Math.abs(speechFrames[speechFrames.length - 1]! - 200) <= 3, `last ${speechFrames.at(-1)}`);
  assert.is(speechFrames.length, speechFrames[speechFrames.length - 1]! - speechFrames[0]! + 1, 'one run');
  assert.ok(
    detectSpeech(frameEnergies(new Int16Array(16000))).every((x) => x === 0),
    'silence has no speech',
  );
});

test('Gaussian statistics: log-determinant, removal and merging agree with a direct computation', () => {
  const random = normal(3);
  const d = 3;
  const data = gaussianFrames(random, 500, d, 0);
  for (let t = 0; t < 500; t++) data[t * d + 1] = data[t * d]! * 0.5 + data[t * d + 1]! * 2; // correlate dims 0, 1
  const workspace = new CovarianceWorkspace(d, 0);
  const all = statsOf(data, d);
  // Direct covariance.
  const mean = [0, 1, 2].map((i) => [...Array(500).keys()].reduce((s, t) => s + data[t * d + i]!, 0) / 500);
  const cov = [0, 1, 2].map((i) =>
    [0, 1, 2].map(
      (j) =>
        [...Array(500).keys()].reduce((s, t) => s + (data[t * d + i]! - mean[i]!) * (data[t * d + j]! - mean[j]!), 0) /
        500,
    ),
  );
  const det =
    cov[0]![0]! * (cov[1]![1]! * cov[2]![2]! - cov[1]![2]! * cov[2]![1]!) -
    cov[0]![1]! * (cov[1]![0]! * cov[2]![2]! - cov[1]![2]! * cov[2]![0]!) +
    cov[0]![2]! * (cov[1]![0]! * cov[2]![1]! - cov[1]![1]! * cov[2]![0]!);
  assert.ok(Math.abs(workspace.logDet(all) - Math.log(det)) < 1e-6);
  const first = new GaussianStats(d);
  first.addRange(data, 0, 200);
  const second = new GaussianStats(d);
  second.addRange(data, 200, 500);
  assert.ok(Math.abs(workspace.logDet(first, second) - workspace.logDet(all)) < 1e-9);
  const shrunk = all.clone();
  for (let t = 200; t < 500; t++) shrunk.update(data, t * d, -1);
  assert.is(shrunk.n, 200);
  assert.ok(Math.abs(workspace.logDet(shrunk) - workspace.logDet(first)) < 1e-6);
});

test('ΔBIC: negative for two samples of one Gaussian, positive for two different Gaussians', () => {
  const random = normal(4);
  const d = 12;
  const workspace = new CovarianceWorkspace(d);
  const a = statsOf(gaussianFrames(random, 300, d, 0), d);
  const b = statsOf(gaussianFrames(random, 300, d, 0), d);
  const c = statsOf(gaussianFrames(random, 300, d, 1, 1.5), d);
  assert.ok(deltaBic(workspace, a, b, 1) < 0);
  assert.ok(deltaBic(workspace, a, c, 1) > 0);
});

test('change detection: one change in a stream of two Gaussians, snapped to a nearby pause', () => {
  const random = normal(5);
  const d = 12;
  const stream = new Float32Array(1000 * d);
  stream.set(gaussianFrames(random, 500, d, 0), 0);
  stream.set(gaussianFrames(random, 500, d, 1, 1.5), 500 * d);
  const changes = detectChanges(stream, 1000, d, []);
  assert.is(changes.length, 1, `changes ${changes.join(',')}`);
  assert.ok(Math.abs(changes[0]! - 500) <= 10, `change at ${changes[0]}`);
  assert.equal(detectChanges(stream, 1000, d, [200, 520, 800]), [520]);
  assert.equal(detectChanges(stream, 150, d, []), [], 'too short to look for changes');
});

test('clustering: interleaved segments of two Gaussians → two clusters; one Gaussian → one; maxSpeakers', () => {
  const random = normal(6);
  const d = 12;
  const segments = [0, 1, 0, 1, 0, 1].map((source) =>
    statsOf(gaussianFrames(random, 300, d, 2 * source, source ? 1.5 : 1), d),
  );
  assert.equal([...clusterSegments(segments)], [0, 1, 0, 1, 0, 1]);
  assert.equal([...clusterSegments(segments, { maxSpeakers: 1 })], [0, 0, 0, 0, 0, 0]);
  const same = [0, 0, 0, 0].map(() => statsOf(gaussianFrames(random, 300, d, 0), d));
  assert.equal([...clusterSegments(same)], [0, 0, 0, 0]);
  assert.equal([...clusterSegments([])], []);
});

test.run();
