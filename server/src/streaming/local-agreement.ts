// The LocalAgreement-2 policy of whisper_streaming (Macháček et al., 2023), as pure functions: a rolling window of
// audio is decoded again every step, and a word is settled (sent in a `transcript.final`, never to change) once two
// consecutive decodes agree on it — the longest common prefix of their words after what is already settled. What the
// latest decode says beyond that prefix is tentative (the partial). A decode's words that start before the end of the
// settled words (less a 0.1 s tolerance: word times move a little between decodes) are the settled ones said again and
// are dropped, as is a repeat of the last settled words at the hypothesis's start (Whisper often re-emits the word
// the window was cut after).
// Times are seconds of session audio.

export interface TimedWord {
  word: string;
  start: number;
  end: number;
}

export interface AgreementState {
  /** End of the last settled word (0 before any). */
  readonly settledEnd: number;
  /** The last settled words (at most MAX_REPEAT), to recognise a hypothesis that repeats them. */
  readonly settledTail: readonly string[];
  /** The tentative words of the previous decode, which the next one is compared with. */
  readonly previous: readonly TimedWord[];
}

export interface AgreementStep {
  state: AgreementState;
  /** Words settled by this decode, in order (times from this decode). */
  settled: TimedWord[];
  /** This decode's words after the settled ones: the running hypothesis. */
  tentative: TimedWord[];
}

/** Word times move between decodes by about a frame or two; a word starting this much before the settled end is new. */
const TIME_TOLERANCE = 0.1;
/** Longest repeat of the settled words that is looked for at a hypothesis's start. */
const MAX_REPEAT = 5;
/** A repeat is only looked for when the hypothesis starts this close to the settled end. */
const REPEAT_WINDOW = 1;

export function initialAgreement(settledEnd = 0): AgreementState {
  return { settledEnd, settledTail: [], previous: [] };
}

/** Two spellings are the same word when they differ only in case and punctuation ("Hello," = "hello"). */
export function sameWord(a: string, b: string): boolean {
  const norm = (word: string) => {
    const bare = word.toLowerCase().replace(/[\p{P}\p{S}]/gu, '');
    return bare === '' ? word : bare;
  };
  return norm(a) === norm(b);
}

/** The hypothesis's words that are not already settled: after the settled end, without a repeat of the last ones. */
export function newWords(state: AgreementState, hypothesis: readonly TimedWord[]): TimedWord[] {
  const fresh = hypothesis.filter((w) => w.start > state.settledEnd - TIME_TOLERANCE);
  const first = fresh[0];
  if (!first || Math.abs(first.start - state.settledEnd) >= REPEAT_WINDOW) return fresh;
  const longest = Math.min(MAX_REPEAT, state.settledTail.length, fresh.length);
  for (let n = 1; n <= longest; n++) {
    const tail = state.settledTail.slice(-n);
    if (tail.every((word, i) => sameWord(word, fresh[i]!.word))) return fresh.slice(n);
  }
  return fresh;
}

/** The longest common prefix of two hypotheses (compared with sameWord), with the times of `current`. */
export function commonPrefix(previous: readonly TimedWord[], current: readonly TimedWord[]): TimedWord[] {
  let n = 0;
  while (n < previous.length && n < current.length && sameWord(previous[n]!.word, current[n]!.word)) n++;
  return current.slice(0, n);
}

function settle(state: AgreementState, settled: TimedWord[], tentative: TimedWord[]): AgreementStep {
  const last = settled.at(-1);
  return {
    settled,
    tentative,
    state: {
      settledEnd: last ? Math.max(state.settledEnd, last.end) : state.settledEnd,
      settledTail: [...state.settledTail, ...settled.map((w) => w.word)].slice(-MAX_REPEAT),
      previous: tentative,
    },
  };
}

/** One decode of the window: settles what it agrees on with the previous decode. */
export function agree(state: AgreementState, hypothesis: readonly TimedWord[]): AgreementStep {
  const fresh = newWords(state, hypothesis);
  const settled = commonPrefix(state.previous, fresh);
  return settle(state, settled, fresh.slice(settled.length));
}

/**
 * The last decode of a span (a pause, `finalize`, `end`, or a window that reached its limit): every new word is
 * settled, and the next decode is compared with nothing.
 */
export function settleAll(state: AgreementState, hypothesis: readonly TimedWord[]): AgreementStep {
  return settle(state, newWords(state, hypothesis), []);
}
