// What PocketSphinx does with a request's `terms`: each term is split into words, and the words that are in the
// pronunciation dictionary become a small unigram language model that is interpolated with the base LM for this
// request (Decoder.setTerms explains the mechanism and why keyword spotting cannot do this). Words not in the dictionary
// cannot be recognised at all — 5prealpha has no grapheme-to-phoneme model to invent a pronunciation — so they are
// ignored (and reported back to the caller of the worker as `ignoredTerms`).
//
// Weight: the terms LM gets min(1 %, 0.1 % × number of words) of the probability mass, i.e. each word ≈ 0.05–0.1 %
// wherever it could occur. Measured on the LibriVox readings: that turns "john guess would" into "john dashwood" and
// "prickly" into "prudently" when those are terms, and inserts unrelated terms ("elephant", "quantum") nowhere; 10 % of
// the mass started to break other words ("ten meters" → "and meters"). Multi-word terms are boosted word by word
// (no bigrams): enough for names, and it keeps the LM trivially small.

/** At most this many distinct words are boosted per request (the rest are ignored). */
export const MAX_TERM_WORDS = 100;

export interface TermsPlan {
  /** Distinct dictionary words to boost, lower case, in first-seen order. */
  words: string[];
  /** Words of the terms that are not in the dictionary (or over the limit). */
  ignored: string[];
  /** Share of the probability mass given to the terms LM. */
  weight: number;
  /** Identifies the word list (same words → same search can be reused). */
  key: string;
  /** The terms LM in ARPA format. */
  arpa: string;
}

/** Lower-cased words of the terms, outer punctuation removed ("Dashwood's," → "dashwood's"). */
export function termWords(terms: readonly string[]): string[] {
  const words: string[] = [];
  for (const term of terms) {
    for (const raw of term.toLowerCase().split(/\s+/)) {
      const word = raw.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '');
      if (word.length > 0) words.push(word);
    }
  }
  return words;
}

/** The plan for these terms; no `words` (and an empty `arpa`) when none of them can be boosted. */
export function planTerms(terms: readonly string[], inDictionary: (word: string) => boolean): TermsPlan {
  const words: string[] = [];
  const ignored: string[] = [];
  for (const word of new Set(termWords(terms))) {
    if (words.length < MAX_TERM_WORDS && inDictionary(word)) words.push(word);
    else ignored.push(word);
  }
  if (words.length === 0) return { words, ignored, weight: 0, key: '', arpa: '' };
  const logProbability = Math.log10(1 / (words.length + 1)).toFixed(4);
  const arpa = [
    '\\data\\',
    `ngram 1=${words.length + 2}`,
    '',
    '\\1-grams:',
    '-99.0000 <s> 0.0000',
    `${logProbability} </s> 0.0000`,
    ...words.map((word) => `${logProbability} ${word} 0.0000`),
    '',
    '\\end\\',
    '',
  ].join('\n');
  return { words, ignored, weight: Math.min(0.01, 0.001 * words.length), key: words.join(' '), arpa };
}
