// Diarization on real speech: voices synthesized with espeak-ng at test time (a low male and a high female voice, A-B
// and A-B-A turns, one voice alone), the human pocketsphinx recording "go forward ten meters" and the LibriVox
// excerpts (single readers), plus the shape of the result (ids, names, segments, one speaker per word) and the speed
// on a minute of audio (printed, not asserted). Word timings of synthesized speech are spread evenly over each
// sentence's audible span, so the first word of a turn starts exactly where its speech starts.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { diarize, labelFrames, type DiarizationResult, type DiarizationWord } from './diarize.ts';
import { FRAME_CENTER_OFFSET, FRAME_SECONDS } from './mfcc.ts';
import {
  HIGH_FEMALE,
  LOW_MALE,
  concat,
  evenWords,
  loadRaw,
  loadWav,
  speechSpan,
  synthesize,
  type Voice,
} from './test-audio.ts';

const SENTENCES = [
  'The quarterly report shows that our northern stores sold more winter coats than expected.',
  'Tomorrow morning we will visit the museum and then have lunch by the river.',
  'Please remember to water the plants and feed the cat while I am away on holiday.',
  'Scientists have discovered a new species of frog living high in the mountain forests.',
  'The train to the city leaves at half past seven, so we should not be late.',
  'My grandmother used to bake bread every Sunday and the whole house smelled wonderful.',
  'After the storm passed, the children ran outside to splash in the puddles.',
  'Could you send me the final version of the contract before the meeting on Friday?',
];
const POCKETSPHINX = '/usr/share/pocketsphinx/test/data';

let dir = '';
const clips = new Map<string, Int16Array>();

/** The clip of sentence `index` spoken by `voice` (synthesized once per run). */
function clip(voice: Voice, index: number): Int16Array {
  const name = `${voice.voice.replace(/\W/g, '_')}-${voice.pitch}-${index}`;
  let pcm = clips.get(name);
  if (!pcm) {
    pcm = synthesize(dir, name, voice, SENTENCES[index]!);
    clips.set(name, pcm);
  }
  return pcm;
}

interface Conversation {
  pcm: Int16Array;
  words: DiarizationWord[];
  /** Index into `words` of the first word of every turn. */
  turnStarts: number[];
  /** Time (s) where the speech of every turn starts. */
  speechStarts: number[];
}

/** Turns of (voice, sentence) one after the other, with word timings spread over each turn's speech. */
function conversation(turns: [Voice, number][]): Conversation {
  const parts = turns.map(([voice, index]) => clip(voice, index));
  const { pcm, starts } = concat(parts);
  const words: DiarizationWord[] = [];
  const turnStarts: number[] = [];
  const speechStarts: number[] = [];
  turns.forEach(([, index], turn) => {
    const span = speechSpan(parts[turn]!);
    turnStarts.push(words.length);
    speechStarts.push(starts[turn]! + span.start);
    words.push(...evenWords(SENTENCES[index]!, starts[turn]! + span.start, starts[turn]! + span.end));
  });
  return { pcm, words, turnStarts, speechStarts };
}

/** Checks the invariants every result must satisfy. */
function checkShape(result: DiarizationResult, words: DiarizationWord[]): void {
  assert.is(result.wordSpeakers.length, words.length, 'one speaker per word');
  result.speakers.forEach((speaker, i) => {
    assert.is(speaker.id, `SPEAKER_${String(i).padStart(2, '0')}`);
    assert.is(speaker.name, `Speaker ${i + 1}`);
  });
  const ids = new Set(result.speakers.map((s) => s.id));
  for (const id of result.wordSpeakers) assert.ok(ids.has(id), `unknown speaker ${id}`);
  // Numbered in order of first appearance.
  const firstSeen: string[] = [];
  for (const id of result.wordSpeakers) if (!firstSeen.includes(id)) firstSeen.push(id);
  assert.equal(firstSeen, [...ids].slice(0, firstSeen.length));
  if (words.length > 0) assert.is(firstSeen.length, result.speakers.length, 'every listed speaker has words');
  // Segments: maximal runs of words of one speaker, in order, covering all words.
  let w = 0;
  result.segments.forEach((segment, i) => {
    if (i > 0) {
      assert.is.not(segment.speaker, result.segments[i - 1]!.speaker, 'adjacent segments have different speakers');
      assert.ok(segment.start >= result.segments[i - 1]!.end, 'segments are in time order');
    }
    const count = segment.text.split(' ').length;
    const run = words.slice(w, w + count);
    assert.is(segment.text, run.map((x) => x.word).join(' '));
    assert.is(segment.start, run[0]!.start);
    assert.is(segment.end, run[run.length - 1]!.end);
    for (let k = w; k < w + count; k++) assert.is(result.wordSpeakers[k], segment.speaker);
    w += count;
  });
  assert.is(w, words.length, 'segments cover every word');
}

/** Start of the first segment of `speaker`. */
function firstSegmentStart(result: DiarizationResult, speaker: string): number {
  const segment = result.segments.find((s) => s.speaker === speaker);
  assert.ok(segment, `no segment of ${speaker}`);
  return segment!.start;
}

/** Time of the first speech frame at or after `from` whose cluster differs from the cluster just before it. */
function frameChangeAfter(pcm: Int16Array, from: number): number {
  const { labels } = labelFrames(pcm);
  let previous = -1;
  for (let t = 0; t < labels.length; t++) {
    const label = labels[t]!;
    if (label < 0) continue;
    const time = FRAME_CENTER_OFFSET + t * FRAME_SECONDS;
    if (time >= from && previous >= 0 && label !== previous) return time;
    previous = label;
  }
  return NaN;
}

const test = suite('diarization');

test.before(() => {
  dir = mkdtempSync(join(tmpdir(), 'diarization-'));
});

test.after(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('(a) a low male voice then a high female voice → two speakers, change within 0.5 s', () => {
  const { pcm, words, turnStarts, speechStarts } = conversation([
    [LOW_MALE, 0],
    [HIGH_FEMALE, 1],
  ]);
  const result = diarize(pcm, words);
  checkShape(result, words);
  assert.is(result.speakers.length, 2);
  assert.equal(
    result.speakers.map((s) => s.id),
    ['SPEAKER_00', 'SPEAKER_01'],
  );
  const boundary = speechStarts[1]!;
  const change = firstSegmentStart(result, 'SPEAKER_01');
  const frameChange = frameChangeAfter(pcm, speechStarts[0]! + 0.5);
  console.log(
    `    (a) true change ${boundary.toFixed(2)} s (clip junction ${(speechStarts[1]! - speechSpan(clip(HIGH_FEMALE, 1)).start).toFixed(2)} s); ` +
      `second speaker's first segment starts at ${change.toFixed(2)} s (error ${Math.abs(change - boundary).toFixed(2)} s); ` +
      `frame-level change at ${frameChange.toFixed(2)} s (error ${Math.abs(frameChange - boundary).toFixed(2)} s)`,
  );
  assert.ok(Math.abs(change - boundary) <= 0.5, `change at ${change}, expected ${boundary} ± 0.5 s`);
  assert.ok(result.wordSpeakers.slice(0, turnStarts[1]).every((id) => id === 'SPEAKER_00'));
  assert.ok(result.wordSpeakers.slice(turnStarts[1]).every((id) => id === 'SPEAKER_01'));
  assert.is(result.segments.length, 2);
});

test('(a) the same voices with the silence between them cut out → the change is found from the voices alone', () => {
  const trim = (pcm: Int16Array) => {
    const span = speechSpan(pcm);
    return pcm.slice(Math.floor(span.start * 16000), Math.ceil(span.end * 16000));
  };
  const parts = [trim(clip(LOW_MALE, 0)), trim(clip(HIGH_FEMALE, 1))];
  const { pcm, starts } = concat(parts);
  const boundary = starts[1]!;
  const words = [...evenWords(SENTENCES[0]!, 0, boundary), ...evenWords(SENTENCES[1]!, boundary, pcm.length / 16000)];
  const result = diarize(pcm, words);
  checkShape(result, words);
  assert.is(result.speakers.length, 2);
  const change = firstSegmentStart(result, 'SPEAKER_01');
  const frameChange = frameChangeAfter(pcm, 0.5);
  console.log(
    `    (a, no pause) true change ${boundary.toFixed(2)} s; first segment of the second speaker at ${change.toFixed(2)} s ` +
      `(error ${Math.abs(change - boundary).toFixed(2)} s); frame-level change at ${frameChange.toFixed(2)} s ` +
      `(error ${Math.abs(frameChange - boundary).toFixed(2)} s)`,
  );
  assert.ok(Math.abs(change - boundary) <= 0.5, `change at ${change}, expected ${boundary} ± 0.5 s`);
  assert.is(result.segments.length, 2);
});

test('(b) A-B-A → two speakers, the third turn goes back to the first speaker', () => {
  const { pcm, words, turnStarts, speechStarts } = conversation([
    [LOW_MALE, 2],
    [HIGH_FEMALE, 3],
    [LOW_MALE, 4],
  ]);
  const result = diarize(pcm, words);
  checkShape(result, words);
  assert.is(result.speakers.length, 2);
  const turn = (i: number) => result.wordSpeakers.slice(turnStarts[i], turnStarts[i + 1] ?? words.length);
  assert.ok(
    turn(0).every((id) => id === 'SPEAKER_00'),
    `turn 1: ${turn(0).join(' ')}`,
  );
  assert.ok(
    turn(1).every((id) => id === 'SPEAKER_01'),
    `turn 2: ${turn(1).join(' ')}`,
  );
  assert.ok(
    turn(2).every((id) => id === 'SPEAKER_00'),
    `turn 3: ${turn(2).join(' ')}`,
  );
  assert.is(result.segments.length, 3);
  const errors = [1, 2].map((i) => Math.abs(result.segments[i]!.start - speechStarts[i]!));
  console.log(`    (b) segment-start errors at the two changes: ${errors.map((e) => `${e.toFixed(2)} s`).join(', ')}`);
  for (const error of errors) assert.ok(error <= 0.5);
});

for (const [label, voice] of [
  ['low male', LOW_MALE],
  ['high female', HIGH_FEMALE],
] as const) {
  test(`(c) one ${label} voice saying two sentences → one speaker`, () => {
    const { pcm, words } = conversation([
      [voice, 5],
      [voice, 6],
    ]);
    const result = diarize(pcm, words);
    checkShape(result, words);
    assert.equal(result.speakers, [{ id: 'SPEAKER_00', name: 'Speaker 1' }]);
    assert.is(result.segments.length, 1);
    assert.is(result.segments[0]!.text, words.map((w) => w.word).join(' '));
  });
}

test('(d) the human recording "go forward ten meters" → one speaker', () => {
  const pcm = loadRaw(join(POCKETSPHINX, 'goforward.raw'));
  const words = [
    { word: 'go', start: 0.46, end: 0.63 },
    { word: 'forward', start: 0.64, end: 1.16 },
    { word: 'ten', start: 1.17, end: 1.52 },
    { word: 'meters', start: 1.53, end: 2.11 },
  ];
  const result = diarize(pcm, words);
  checkShape(result, words);
  assert.equal(result, {
    speakers: [{ id: 'SPEAKER_00', name: 'Speaker 1' }],
    segments: [{ speaker: 'SPEAKER_00', start: 0.46, end: 2.11, text: 'go forward ten meters' }],
    wordSpeakers: ['SPEAKER_00', 'SPEAKER_00', 'SPEAKER_00', 'SPEAKER_00'],
  });
});

const librivox = join(POCKETSPHINX, 'librivox');
const transcripts = new Map(
  readFileSync(join(librivox, 'transcription'), 'utf8')
    .split('\n')
    .map((line) => /^<s> (.*) <\/s> \((.*)\)$/.exec(line.trim()))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => [m[2]!, m[1]!]),
);

function librivoxWords(pcm: Int16Array, text: string, offset: number): DiarizationWord[] {
  const span = speechSpan(pcm, 1000);
  return evenWords(text, offset + span.start, offset + span.end);
}

for (const [id, text] of transcripts) {
  test(`(e) LibriVox ${id.slice(-4)} (one reader) → one speaker`, () => {
    const pcm = loadWav(join(librivox, `${id}.wav`));
    const words = librivoxWords(pcm, text, 0);
    const result = diarize(pcm, words);
    checkShape(result, words);
    assert.equal(result.speakers, [{ id: 'SPEAKER_00', name: 'Speaker 1' }]);
    assert.is(result.segments.length, 1);
  });
}

test('(e) all five LibriVox excerpts back to back (25 s, one reader) → one speaker', () => {
  const parts = [...transcripts.keys()].map((id) => loadWav(join(librivox, `${id}.wav`)));
  const { pcm, starts } = concat(parts);
  const words = [...transcripts.values()].flatMap((text, i) => librivoxWords(parts[i]!, text, starts[i]!));
  const result = diarize(pcm, words);
  checkShape(result, words);
  assert.is(result.speakers.length, 1);
});

test('(f) shape: no words, silence, empty audio, unsorted words, maxSpeakers', () => {
  const { pcm, words } = conversation([
    [LOW_MALE, 0],
    [HIGH_FEMALE, 1],
  ]);

  // Without words the audio still decides the speakers, but there is nothing to segment.
  assert.equal(diarize(pcm, []), {
    speakers: [
      { id: 'SPEAKER_00', name: 'Speaker 1' },
      { id: 'SPEAKER_01', name: 'Speaker 2' },
    ],
    segments: [],
    wordSpeakers: [],
  });

  // maxSpeakers caps the count.
  const capped = diarize(pcm, words, { maxSpeakers: 1 });
  checkShape(capped, words);
  assert.is(capped.speakers.length, 1);
  assert.ok(capped.wordSpeakers.every((id) => id === 'SPEAKER_00'));

  // Words given out of order: ids still follow time order and wordSpeakers follows input order.
  const sorted = diarize(pcm, words);
  const order = words.map((_, i) => i).reverse();
  const reversed = diarize(
    pcm,
    order.map((i) => words[i]!),
  );
  assert.equal(
    reversed.wordSpeakers,
    order.map((i) => sorted.wordSpeakers[i]),
  );
  assert.equal(reversed.segments, sorted.segments);

  // Silence and empty audio: no speakers from audio; words all go to one speaker.
  const silence = new Int16Array(16000 * 3);
  assert.equal(diarize(silence, []), { speakers: [], segments: [], wordSpeakers: [] });
  const quiet = diarize(silence, [
    { word: 'hello', start: 0.5, end: 0.9 },
    { word: ' there', start: 1, end: 1.4 },
  ]);
  assert.equal(quiet, {
    speakers: [{ id: 'SPEAKER_00', name: 'Speaker 1' }],
    segments: [{ speaker: 'SPEAKER_00', start: 0.5, end: 1.4, text: 'hello there' }],
    wordSpeakers: ['SPEAKER_00', 'SPEAKER_00'],
  });
  assert.equal(diarize(new Int16Array(0), []), { speakers: [], segments: [], wordSpeakers: [] });
  assert.is(diarize(new Int16Array(100), [{ word: 'a', start: 0, end: 0.1 }]).wordSpeakers[0], 'SPEAKER_00');
});

test('speed on a 60 s two-voice conversation (printed, not asserted)', () => {
  const turns: [Voice, number][] = [];
  // Alternating voices; after one round of the sentences the voices swap, so no clip is heard twice.
  for (let i = 0; i < 14; i++) {
    const voice = (i + Math.floor(i / SENTENCES.length)) % 2 === 0 ? LOW_MALE : HIGH_FEMALE;
    turns.push([voice, i % SENTENCES.length]);
  }
  const { pcm, words } = conversation(turns);
  const seconds = pcm.length / 16000;
  assert.ok(seconds >= 60, `only ${seconds.toFixed(1)} s of audio`);
  diarize(pcm.subarray(0, 16000 * 5), []); // warm-up (JIT)
  const started = performance.now();
  const result = diarize(pcm, words);
  const elapsed = performance.now() - started;
  console.log(
    `    speed: ${seconds.toFixed(1)} s of audio diarized in ${elapsed.toFixed(0)} ms ` +
      `(${((elapsed / 1000 / seconds) * 100).toFixed(2)} % of real time), ${result.speakers.length} speakers, ` +
      `${result.segments.length} segments`,
  );
  checkShape(result, words);
  assert.is(result.speakers.length, 2);
});

test.run();
