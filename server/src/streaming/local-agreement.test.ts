// The LocalAgreement-2 policy on its own: what two consecutive decodes agree on is settled, the rest is tentative;
// words already settled (by time, or repeated at the start) are not settled twice; settleAll settles every new word.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  agree,
  commonPrefix,
  initialAgreement,
  newWords,
  sameWord,
  settleAll,
  type TimedWord,
} from './local-agreement.ts';

const test = suite('LocalAgreement-2');

/** Words of `text` one per 0.5 s from `from` (each 0.4 s long). */
function words(text: string, from = 0): TimedWord[] {
  return text.split(' ').map((word, i) => ({ word, start: from + i * 0.5, end: from + i * 0.5 + 0.4 }));
}
const spelled = (list: TimedWord[]) => list.map((w) => w.word).join(' ');

test('the first decode settles nothing: it has no predecessor to agree with', () => {
  const step = agree(initialAgreement(), words('good morning let'));
  assert.equal(step.settled, []);
  assert.is(spelled(step.tentative), 'good morning let');
  assert.is(step.state.settledEnd, 0);
  assert.equal(step.state.previous, step.tentative);
});

test('the second decode settles the longest common prefix, with its own times; the rest stays tentative', () => {
  const first = agree(initialAgreement(), words('good morning lettuce'));
  const current = words('good morning let us start').map((w) => ({ ...w, end: w.end + 0.02 }));
  const second = agree(first.state, current);
  assert.is(spelled(second.settled), 'good morning');
  assert.equal(second.settled, current.slice(0, 2), 'times from the latest decode');
  assert.is(spelled(second.tentative), 'let us start');
  assert.is(second.state.settledEnd, current[1]!.end);
  assert.equal(second.state.settledTail, ['good', 'morning']);
});

test('a prefix that differs in its first word settles nothing', () => {
  const first = agree(initialAgreement(), words('a b c'));
  const second = agree(first.state, words('x b c'));
  assert.equal(second.settled, []);
  assert.is(spelled(second.tentative), 'x b c');
});

test('case and punctuation do not break agreement ("Morning," = "morning")', () => {
  assert.ok(sameWord('Morning,', 'morning'));
  assert.ok(sameWord('¿Qué?', 'qué'));
  assert.not.ok(sameWord('morning', 'mourning'));
  assert.ok(sameWord('...', '...'), 'punctuation alone compares as it is');
  assert.not.ok(sameWord('...', '!'));
  const first = agree(initialAgreement(), words('Good morning, let'));
  const second = agree(first.state, words('good Morning let us'));
  assert.is(spelled(second.settled), 'good Morning let');
});

test('words that start before the settled end are not settled again (a 0.1 s tolerance for moved times)', () => {
  let state = agree(initialAgreement(), words('one two three four')).state;
  state = agree(state, words('one two three four five')).state; // settles one..four, ends at 1.9
  assert.is(state.settledEnd, 1.9);
  // The next window still holds the settled audio: its words before 1.8 are dropped, 1.85 is kept as new.
  const again = [
    { word: 'one', start: 0, end: 0.4 },
    { word: 'two', start: 0.5, end: 0.9 },
    { word: 'five', start: 1.85, end: 2.3 },
  ];
  assert.is(spelled(newWords(state, again)), 'five');
  const step = agree(state, again);
  assert.is(spelled(step.settled), 'five', 'agrees with the tentative "five" of the previous decode');
  assert.is(step.state.settledEnd, 2.3);
});

test('a repeat of the last settled words at the start of a hypothesis is dropped (1 to 5 words)', () => {
  const state = { settledEnd: 2, settledTail: ['let', 'us', 'start'], previous: [] };
  const repeated = [
    { word: 'us', start: 2.0, end: 2.2 },
    { word: 'start', start: 2.2, end: 2.5 },
    { word: 'now', start: 2.6, end: 2.9 },
  ];
  // "start" alone is not the hypothesis's first word; "us start" is the shortest repeat that matches.
  assert.is(spelled(newWords(state, repeated)), 'now');
  // Far from the settled end (≥ 1 s) a matching word is new speech, not a repeat.
  const later = repeated.map((w) => ({ ...w, start: w.start + 1.5, end: w.end + 1.5 }));
  assert.is(spelled(newWords(state, later)), 'us start now');
});

test('settleAll settles every new word and leaves nothing to compare with', () => {
  const first = agree(initialAgreement(), words('alpha beta'));
  const last = settleAll(first.state, words('alpha beta gamma'));
  assert.is(spelled(last.settled), 'alpha beta gamma');
  assert.equal(last.tentative, []);
  assert.equal(last.state.previous, []);
  assert.is(last.state.settledEnd, 1.4);
  assert.equal(settleAll(last.state, []).settled, [], 'nothing new: nothing settled');
  assert.is(settleAll(last.state, []).state.settledEnd, 1.4, 'the settled end never moves back');
});

test('commonPrefix stops at the shorter hypothesis', () => {
  assert.is(spelled(commonPrefix(words('a b'), words('a b c d'))), 'a b');
  assert.is(spelled(commonPrefix(words('a b c d'), words('a b'))), 'a b');
  assert.equal(commonPrefix([], words('a')), []);
});

test('three decodes in a row settle progressively and never go back', () => {
  const decodes = ['the cat', 'the cat sat on', 'the cat sat on the mat', 'the cat sat on the mat today'];
  let state = initialAgreement();
  const settled: string[] = [];
  for (const text of decodes) {
    const step = agree(state, words(text));
    settled.push(...step.settled.map((w) => w.word));
    state = step.state;
  }
  assert.is(settled.join(' '), 'the cat sat on the mat');
  assert.is(state.settledEnd, 2.9);
});

test.run();
