// Word error rate, for tests and benchmarks that check an engine's accuracy on real recordings: texts are normalised
// (lower case, punctuation dropped, apostrophes inside words kept) and compared word by word with a Levenshtein
// alignment, WER = (substitutions + deletions + insertions) / reference words. Sum `errors` and `referenceWords` over
// several files for a corpus WER rather than averaging per-file rates.

export interface WerResult {
  substitutions: number;
  deletions: number;
  insertions: number;
  /** substitutions + deletions + insertions */
  errors: number;
  referenceWords: number;
  /** errors / referenceWords (0 when both are empty, Infinity for words against an empty reference). */
  rate: number;
}

/** "Mr. Dashwood's  HOUSE," → ["mr", "dashwood's", "house"] */
export function normalizeWords(text: string): string[] {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}']+/gu, ' ')
    .split(' ')
    .map((word) => word.replace(/^'+|'+$/g, ''))
    .filter((word) => word.length > 0);
}

/** Word-level edit distance between two texts (normalised first), split into its kinds. */
export function wordErrorRate(reference: string, hypothesis: string): WerResult {
  const ref = normalizeWords(reference);
  const hyp = normalizeWords(hypothesis);
  // row[j]: the error counts of the best alignment of ref[0..i) with hyp[0..j), computed one row (i) at a time.
  type Counts = { s: number; d: number; i: number };
  let previous: Counts[] = Array.from({ length: hyp.length + 1 }, (_, j) => ({ s: 0, d: 0, i: j }));
  for (let i = 1; i <= ref.length; i++) {
    const row: Counts[] = [{ s: 0, d: i, i: 0 }];
    for (let j = 1; j <= hyp.length; j++) {
      const diagonal = previous[j - 1]!;
      const same = ref[i - 1] === hyp[j - 1];
      const candidates: Counts[] = [
        same ? diagonal : { ...diagonal, s: diagonal.s + 1 },
        { ...previous[j]!, d: previous[j]!.d + 1 },
        { ...row[j - 1]!, i: row[j - 1]!.i + 1 },
      ];
      row.push(candidates.reduce((best, c) => (total(c) < total(best) ? c : best)));
    }
    previous = row;
  }
  const last = previous[hyp.length]!;
  const errors = total(last);
  return {
    substitutions: last.s,
    deletions: last.d,
    insertions: last.i,
    errors,
    referenceWords: ref.length,
    rate: ref.length === 0 ? (errors === 0 ? 0 : Infinity) : errors / ref.length,
  };

  function total(c: Counts): number {
    return c.s + c.d + c.i;
  }
}

/** Corpus WER: total errors over total reference words of several (reference, hypothesis) pairs. */
export function corpusWordErrorRate(pairs: readonly { reference: string; hypothesis: string }[]): WerResult {
  const sum = { substitutions: 0, deletions: 0, insertions: 0, errors: 0, referenceWords: 0 };
  for (const { reference, hypothesis } of pairs) {
    const r = wordErrorRate(reference, hypothesis);
    sum.substitutions += r.substitutions;
    sum.deletions += r.deletions;
    sum.insertions += r.insertions;
    sum.errors += r.errors;
    sum.referenceWords += r.referenceWords;
  }
  const rate = sum.referenceWords === 0 ? (sum.errors === 0 ? 0 : Infinity) : sum.errors / sum.referenceWords;
  return { ...sum, rate };
}
