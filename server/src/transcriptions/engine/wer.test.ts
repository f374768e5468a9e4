// Word error rate: normalisation (case, punctuation, apostrophes) and the three kinds of edit, per text and summed.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { corpusWordErrorRate, normalizeWords, wordErrorRate } from './wer.ts';

const test = suite('wer');

test('normalisation drops case and punctuation but keeps apostrophes inside words', () => {
  assert.equal(normalizeWords("Mr. Dashwood's  HOUSE, 'twas — “fine”!"), ['mr', "dashwood's", 'house', 'twas', 'fine']);
  assert.equal(normalizeWords('   '), []);
});

test('identical texts have no errors, whatever the punctuation', () => {
  const r = wordErrorRate('Go forward, ten meters.', 'go forward ten meters');
  assert.equal([r.errors, r.referenceWords, r.rate], [0, 4, 0]);
});

test('substitutions, deletions and insertions are counted separately', () => {
  const r = wordErrorRate('he was not an ill disposed young man', 'he was not until this blows young man');
  assert.equal([r.substitutions, r.deletions, r.insertions, r.errors], [3, 0, 0, 3]);
  const d = wordErrorRate('had he married a more a amiable woman', 'had he married a more amiable woman');
  assert.equal([d.substitutions, d.deletions, d.insertions], [0, 1, 0]);
  const i = wordErrorRate('go forward', 'go go forward now');
  assert.equal([i.substitutions, i.deletions, i.insertions, i.rate], [0, 0, 2, 1]);
});

test('empty reference and empty hypothesis', () => {
  assert.is(wordErrorRate('', '').rate, 0);
  assert.is(wordErrorRate('', 'noise').rate, Infinity);
  assert.is(wordErrorRate('two words', '').rate, 1);
});

test('corpus WER sums errors and words instead of averaging rates', () => {
  const r = corpusWordErrorRate([
    { reference: 'a b c d', hypothesis: 'a b c d' },
    { reference: 'e f', hypothesis: 'e x' },
  ]);
  assert.equal([r.errors, r.referenceWords], [1, 6]);
  assert.ok(Math.abs(r.rate - 1 / 6) < 1e-12);
});

test.run();
