// The recognizer with the real PocketSphinx streaming decoder (in this thread), on real speech: goforward.raw twice,
// each time followed by 1 s of the recording's own room noise. Audio goes in 10 ms pushes, so the audio position at
// which a result comes out is exact to a frame: that is what `endpointing` decides (how much silence ends an utterance).
import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { StreamTranscriptFinal } from '../../../generated/client/types.gen.ts';
import { modelPaths } from '../transcriptions/engine/pocketsphinx/engine.ts';
import { GOFORWARD_RAW } from '../test-support/audio.ts';
import { Recognizer, type RecognizerEvent, type RecognizerOptions } from './recognizer.ts';
import { StreamDecoder } from './stream-decoder.ts';

const RATE = 16_000;
const speech = readFileSync(GOFORWARD_RAW);
const room = speech.subarray(0, 0.4 * RATE * 2); // before the speaker starts
const pause = Buffer.concat([room, room, room.subarray(0, 0.2 * RATE * 2)]); // 1.0 s
const bytes = Buffer.concat([speech, pause, speech, pause]);
const signal = new Int16Array(bytes.buffer, bytes.byteOffset, bytes.length / 2);

let decoder: StreamDecoder;

test.before(() => {
  decoder = StreamDecoder.create(modelPaths());
});

test.after(() => decoder.free());

interface Timed {
  event: RecognizerEvent;
  /** Seconds of audio pushed when the event came out. */
  at: number;
}

function run(
  options: Partial<RecognizerOptions>,
  pushSamples = RATE / 100,
): { timed: Timed[]; atEnd: RecognizerEvent[] } {
  decoder.resetCmn();
  const recognizer = new Recognizer(decoder, {
    sampleRate: RATE,
    interimResults: true,
    wordTimestamps: true,
    ...options,
  });
  const timed: Timed[] = [];
  for (let offset = 0; offset < signal.length; offset += pushSamples) {
    const chunk = signal.subarray(offset, offset + pushSamples);
    for (const event of recognizer.push(chunk)) timed.push({ event, at: (offset + chunk.length) / RATE });
  }
  return { timed, atEnd: recognizer.end() };
}

const spokenFinals = (timed: Timed[]) =>
  timed.filter(
    (t): t is Timed & { event: StreamTranscriptFinal } => t.event.type === 'transcript.final' && t.event.text !== '',
  );

test('a final comes once `endpointing` ms passed after the last word ended, same words whatever the setting', () => {
  const short = spokenFinals(run({ endpointing: 300 }).timed);
  const long = spokenFinals(run({ endpointing: 800 }).timed);
  assert.equal(
    short.map((t) => t.event.text),
    ['go forward ten meters', 'go forward ten meters'],
  );
  // The same words; the times within a frame or two (the utterances end after different amounts of silence, and
  // the running cepstral mean carried into the next one follows what was fed).
  assert.equal(
    long.map((t) => t.event.text),
    short.map((t) => t.event.text),
  );
  long.forEach((final, i) =>
    final.event.words!.forEach((word, j) => {
      const other = short[i]!.event.words![j]!;
      assert.ok(Math.abs(word.start - other.start) <= 0.02 && Math.abs(word.end - other.end) <= 0.02, word.word);
    }),
  );
  for (const [finals, endpointing, most] of [
    [short, 0.3, 0.36],
    [long, 0.8, 0.82],
  ] as const) {
    finals.forEach((final, i) => {
      assert.is(final.event.end, final.at, 'the span ends where the final was decided');
      // From the end of the last word (the decoder's own word time) to the final: the silence asked for, plus at
      // most the moment the energy detector takes to agree that the word's fading end is over.
      const wait = final.at - final.event.words!.at(-1)!.end;
      assert.ok(
        wait >= endpointing - 0.005 && wait <= most,
        `endpointing ${endpointing * 1000} ms, utterance ${i}: the final came ${wait.toFixed(3)} s after the last word`,
      );
    });
  }
});

test('endpointing false: the pauses end no utterance; `end` gives one final with both', () => {
  const { timed, atEnd } = run({ endpointing: false });
  assert.is(timed.filter((t) => t.event.type === 'transcript.final').length, 0);
  assert.equal(
    atEnd.map((e) => e.text),
    ['go forward ten meters go forward ten meters'],
  );
  assert.ok(
    Math.abs((atEnd[0] as StreamTranscriptFinal).end - signal.length / RATE) < 0.005,
    'the span runs to the end',
  );
});

test('partials: one per 200 ms of audio while an utterance runs, with the running hypothesis, before its final', () => {
  const { timed } = run({ endpointing: 300 }, RATE / 10);
  const partials = timed.filter((t) => t.event.type === 'transcript.partial');
  assert.ok(partials.length >= 16, `${partials.length} partials`);
  for (let i = 1; i < partials.length; i++) {
    if (partials[i]!.event.start !== partials[i - 1]!.event.start) continue; // a new span
    const gap = partials[i]!.at - partials[i - 1]!.at;
    assert.ok(Math.abs(gap - 0.2) < 1e-9, `partials ${gap.toFixed(3)} s of audio apart`);
  }
  const firstFinal = timed.findIndex((t) => t.event.type === 'transcript.final');
  const before = timed.slice(0, firstFinal).filter((t) => t.event.type === 'transcript.partial');
  assert.is(before.at(-1)!.event.text, 'go forward ten meters', 'the last partial already holds the final text');
});

test.run();
