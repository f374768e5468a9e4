// Words from whisper.cpp's per-token segments: a token with leading white space starts a word, times come from the
// tokens and are clamped to the audio, and a character split across tokens (arriving as U+FFFD per token) is spelled
// from the whole text.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { wordsOf } from './words.ts';

const test = suite('whisper words');

test('tokens merge into words with the first token start and the last token end', () => {
  const segments = [
    { text: ' Hel', t0: 0, t1: 200 },
    { text: 'lo', t0: 200, t1: 400 },
    { text: ',', t0: 400, t1: 420 },
    { text: ' world', t0: 500, t1: 900 },
  ];
  assert.equal(wordsOf('Hello, world', segments, 5), [
    { word: 'Hello,', start: 0, end: 0.42 },
    { word: 'world', start: 0.5, end: 0.9 },
  ]);
});

test('a character split across tokens is spelled from the whole text', () => {
  // "Привет мир": the tokens hold half a Cyrillic letter each where U+FFFD appears.
  const segments = [
    { text: ' При', t0: 0, t1: 100 },
    { text: '\uFFFD', t0: 100, t1: 150 },
    { text: '\uFFFDвет', t0: 150, t1: 300 },
    { text: ' мир', t0: 400, t1: 600 },
  ];
  const words = wordsOf('Привет мир', segments, 5);
  assert.equal(
    words.map((w) => w.word),
    ['Привет', 'мир'],
  );
  assert.equal([words[0]!.start, words[0]!.end], [0, 0.3]);
});

test('times are clamped to the audio, never go back, and end is never before start', () => {
  const segments = [
    { text: ' a', t0: 900, t1: 900 },
    { text: ' b', t0: 300, t1: 200 },
    { text: ' c', t0: 2500, t1: 28_960 },
  ];
  assert.equal(wordsOf('a b c', segments, 2.79), [
    { word: 'a', start: 0.9, end: 0.9 },
    { word: 'b', start: 0.9, end: 0.9 },
    { word: 'c', start: 2.5, end: 2.79 },
  ]);
});

test.run();
