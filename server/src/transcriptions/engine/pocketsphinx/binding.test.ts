// The PocketSphinx binding on real recordings, in this thread (no pool): decoding, frame numbering on a reused decoder
// (relative to each utterance — the finding binding.ts documents), independence from what was decoded before, word
// cleaning, and the terms bias (it changes the words it should, inserts nothing else, and switching back restores the
// unbiased results exactly).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { SAMPLE_RATE } from '../pcm-file.ts';
import { GO_FORWARD, joinWithPauses, librivoxRecordings, noise, readAsPcm, samplesOf } from '../test-audio.ts';
import { readFileSync } from 'node:fs';
import { Decoder } from './binding.ts';
import { modelPaths } from './engine.ts';
import { planTerms, termWords } from './terms.ts';
import { cleanWord, toEngineWords } from './words.ts';

const test = suite('pocketsphinx binding');
const goForward = samplesOf(readFileSync(GO_FORWARD.path));
let decoder: Decoder;

test.before(() => {
  decoder = Decoder.create(modelPaths());
});
test.after(() => decoder.free());

const text = (pcm: Int16Array) =>
  toEngineWords(decoder.decode(pcm).segments, 0)
    .map((w) => w.word)
    .join(' ');

test('decodes goforward.raw with word frames and posteriors', () => {
  const utterance = decoder.decode(goForward);
  assert.is(utterance.hypothesis, 'go forward ten meters');
  const words = utterance.segments.filter((s) => cleanWord(s.word));
  assert.equal(
    words.map((w) => w.word),
    ['go', 'forward', 'ten', 'meters'],
  );
  words.forEach((w, i) => {
    assert.ok(Math.abs(w.startFrame / 100 - GO_FORWARD.starts[i]!) <= 0.1, `${w.word} at ${w.startFrame}`);
    assert.ok(w.probability >= 0 && w.probability <= 1);
  });
  assert.ok(Math.abs(utterance.frames - goForward.length / 160) <= 1, `${utterance.frames} frames`);
});

test('a reused decoder numbers frames from each utterance start, and earlier audio does not change the text', () => {
  const first = decoder.decode(goForward).segments.find((s) => s.word === 'go')!;
  // 3 s of quiet noise, then the same recording: one utterance whose words are 300 frames later
  const delayed = joinWithPauses([noise(3, 60), goForward], []).pcm;
  const shifted = decoder.decode(delayed).segments.find((s) => s.word === 'go')!;
  assert.ok(Math.abs(shifted.startFrame - 300 - first.startFrame) <= 3, `go at ${shifted.startFrame}`);
  // after other utterances (one with a long silence), the first file decodes exactly as before
  decoder.decode(librivoxRecordings()[1]!.pcm);
  const again = decoder.decode(goForward);
  assert.is(again.hypothesis, 'go forward ten meters');
  assert.is(again.segments.find((s) => s.word === 'go')!.startFrame, first.startFrame);
});

test('empty audio decodes to nothing', () => {
  const utterance = decoder.decode(new Int16Array(0));
  assert.is(utterance.hypothesis, '');
  assert.equal(toEngineWords(utterance.segments, 0), []);
});

test('word cleaning: fillers and silences dropped, pronunciation variants merged', () => {
  for (const token of ['<s>', '</s>', '<sil>', '[NOISE]', '[SPEECH]', '++BREATH++', '+NSN+']) {
    assert.is(cleanWord(token), undefined, token);
  }
  assert.is(cleanWord('read(2)'), 'read');
  assert.is(cleanWord("don't"), "don't");
  assert.is(cleanWord('s.'), 's.');
  const words = toEngineWords(
    [
      { word: '<s>', startFrame: 0, endFrame: 9, probability: 1 },
      { word: 'and(2)', startFrame: 10, endFrame: 31, probability: 0.2149 },
      { word: '<sil>', startFrame: 32, endFrame: 40, probability: 0.9 },
      { word: 'mr', startFrame: 41, endFrame: 66, probability: 0.88 },
    ],
    12.345,
  );
  assert.equal(words, [
    { word: 'and', start: 12.45, end: 12.67, confidence: 0.215 },
    { word: 'mr', start: 12.76, end: 13.02, confidence: 0.88 },
  ]);
});

test('terms: words are split, lower-cased, de-duplicated and checked against the dictionary', () => {
  assert.equal(termWords(['John Dashwood', '"Prudently,"', '  ']), ['john', 'dashwood', 'prudently']);
  assert.ok(decoder.lookupWord('dashwood')?.includes('SH'));
  assert.is(decoder.lookupWord('zzqxv'), undefined);
  const plan = planTerms(['Dashwood', 'dashwood', 'Zzqxv Prudently'], (w) => decoder.lookupWord(w) !== undefined);
  assert.equal(plan.words, ['dashwood', 'prudently']);
  assert.equal(plan.ignored, ['zzqxv']);
  assert.ok(plan.weight > 0 && plan.weight <= 0.01);
  assert.match(plan.arpa, /^\\data\\\nngram 1=4\n/);
  assert.match(plan.arpa, /\n-0\.4771 dashwood 0\.0000\n/);
  assert.equal(planTerms([], () => true).words, []);
});

test('terms bias the search towards them, insert nothing else, and switching back restores the exact results', async () => {
  const [dashwood, , unless] = librivoxRecordings();
  const dir = await mkdtemp(join(tmpdir(), 'terms-'));
  try {
    const baseline = [text(dashwood!.pcm), text(unless!.pcm), text(goForward)];
    assert.not.match(baseline[0]!, /dashwood/);
    assert.not.match(baseline[1]!, /^unless/);

    const plan = planTerms(['Dashwood', 'unless', 'elephant', 'quantum'], () => true);
    const arpaPath = join(dir, 'terms.arpa');
    await writeFile(arpaPath, plan.arpa);
    decoder.setTerms({ key: plan.key, arpaPath, weight: plan.weight });
    const biased = [text(dashwood!.pcm), text(unless!.pcm), text(goForward)];
    assert.match(biased[0]!, /john dashwood/);
    assert.match(biased[1]!, /^unless to be rather cold hearted/);
    assert.is(biased[2], 'go forward ten meters');
    for (const t of biased) assert.not.match(t, /elephant|quantum/);

    decoder.setTerms(null);
    assert.equal([text(dashwood!.pcm), text(unless!.pcm), text(goForward)], baseline);
    // the same key again reuses the search (and still biases)
    decoder.setTerms({ key: plan.key, arpaPath: '/nonexistent', weight: plan.weight });
    assert.match(text(dashwood!.pcm), /john dashwood/);
    // other terms replace that search
    const other = planTerms(['prudently'], () => true);
    await writeFile(arpaPath, other.arpa);
    decoder.setTerms({ key: other.key, arpaPath, weight: other.weight });
    const replaced = text(dashwood!.pcm);
    assert.match(replaced, /be prudently in/);
    assert.not.match(replaced, /dashwood/);
    decoder.setTerms(null);
    assert.is(text(goForward), 'go forward ten meters');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('a missing model fails clearly', () => {
  assert.throws(() => Decoder.create({ ...modelPaths(), hmm: '/nonexistent/en-us' }), /could not load its model/);
});

test('LibriVox WAVs are read as 16 kHz mono samples', () => {
  const recordings = librivoxRecordings();
  assert.is(recordings.length, 5);
  const first = readAsPcm('/usr/share/pocketsphinx/test/data/librivox/sense_and_sensibility_01_austen_64kb-0870.wav');
  assert.is(first.length, recordings[0]!.pcm.length);
  assert.ok(Math.abs(first.length / SAMPLE_RATE - 7.1) < 0.01);
});

test.run();
