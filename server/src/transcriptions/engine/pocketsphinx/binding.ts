// koffi declarations for the Debian PocketSphinx 5prealpha C API (libpocketsphinx.so.3 + libsphinxbase.so.3) and a
// Decoder class over them: create one with model paths, decode an utterance from an Int16Array (words with their frames
// and posterior probabilities), bias it towards some words, free it. A decoder is not thread-safe and decodes one
// utterance at a time; the worker owns exactly one.
//
// What was measured on these libraries (and is relied on here):
//  - Frames are 10 ms. ps_seg_frames adds the acoustic model's stream offset: with incremental feeding
//    (ps_process_raw(full_utt=0) in chunks) a reused decoder reports frames counted from the start of the *stream*, so
//    a second utterance's words come out hundreds of frames late; with the built-in VAD (-remove_silence yes, the
//    default) the counts are also skewed by the silence it drops. We decode each utterance in ONE call with
//    full_utt=1 and -remove_silence no: then every utterance's frames start at 0 on a reused decoder (a test checks),
//    and callers shift them by the utterance's position in the file.
//  - full_utt=1 is also what makes the model's `-cmn batch` (feat.params) real: fed in chunks, sphinxbase silently
//    switches batch CMN to a running ("prior") mean that carries over between utterances — after an utterance with a
//    long silence the next one decoded worse ("go forward and majors"). With full_utt=1 each utterance is normalised
//    on its own. The decoder is still not free of history: the PTM acoustic model seeds each frame's top-N Gaussians
//    with the previous frame's (ptm_mgau.c; the first frame of an utterance gets the last frame of the one before,
//    and only codebooks the search has active are scanned again), and there is no API to reset that short of
//    reloading the model. So posteriors vary between repeated decodes of the same audio ("ten": 0.19–0.54), and
//    now and then a word does: the 60 s LibriVox loop of bench/stt.ts gave 177 words after a decode of another file
//    and 176 (one "fun" fewer) after a decode of itself.
//  - ps_seg_prob is the word's posterior in the lattice (bestpath is on by default) as a log in the decoder's logmath
//    base; logmath_exp turns it into [0, 1].
//  - Biasing (see setTerms): the only per-request knob that keeps the n-gram search is a different language model.
//    `-kws`/ps_set_keyphrase switches to a keyword-spotting search that outputs only the keyphrases, so it cannot
//    boost words inside a normal transcript. Instead we build an interpolated LM set (ngram_model_set_init) of the
//    base LM and a tiny unigram LM of the terms, register it as a second search (ps_set_lm) and switch to it; switching
//    back to "_default" gives exactly the unbiased results again (tested). Building it costs ~0.3–0.5 s (a new
//    lexicon tree over the union vocabulary).
//  - Logging is process-global, not per decoder, and not thread-safe (see setPocketSphinxLog).
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { isMainThread } from 'node:worker_threads';
import koffi from 'koffi';

/** A C pointer as koffi 3 passes it (BigInt), or null. */
type Pointer = bigint | null;

export interface ModelPaths {
  /** Acoustic model directory (with mdef, means, feat.params, …). */
  hmm: string;
  /** N-gram language model (.lm.bin or ARPA). */
  lm: string;
  /** Pronunciation dictionary. */
  dict: string;
  /**
   * The PocketSphinx library file (libpocketsphinx.so.3), its libsphinxbase.so.3 beside it; absent = the system's,
   * found by the dynamic loader.
   */
  library?: string;
}

/** One entry of the best path of an utterance, frames relative to the utterance, probability in [0, 1]. */
export interface DecodedSegment {
  /** As the decoder spells it: may be `<s>`, `<sil>`, `[NOISE]` or carry an alternative-pronunciation suffix `(2)`. */
  word: string;
  /** First frame (10 ms each), from 0 at the utterance's first sample. */
  startFrame: number;
  /** Last frame, inclusive. */
  endFrame: number;
  probability: number;
}

export interface DecodedUtterance {
  hypothesis: string;
  segments: DecodedSegment[];
  /** Frames the decoder processed for this utterance. */
  frames: number;
}

export const FRAMES_PER_SECOND = 100;

/** Name PocketSphinx gives the search built from -lm at init. */
const DEFAULT_SEARCH = '_default';
const TERMS_SEARCH = 'scribe_terms';
const NGRAM_ARPA = 1;

type Api = ReturnType<typeof declare>;
let api: Api | undefined;

/**
 * Loads the two shared libraries and declares the functions (once per thread: the first call's `library` wins); throws
 * if they are not installed. The first load on the main thread also silences PocketSphinx's log (see
 * setPocketSphinxLog).
 */
export function loadPocketSphinx(library?: string): Api {
  if (!api) {
    api = declare(library);
    if (isMainThread) api.err_set_logfp(null);
  }
  return api;
}

/**
 * Where PocketSphinx logs, for the whole process: a file (appended to) or nowhere (null, the default once loaded on
 * the main thread). Call it on the main thread before any decoder exists — never from workers: sphinxbase keeps the
 * log in ONE global FILE* that `err_set_logfp`/`-logfn` fclose() and replace without a lock, so two threads setting it
 * at once (two workers each starting a decoder with -logfn, as a first version did) double-close it and corrupt the
 * heap ("tcache_thread_shutdown(): unaligned tcache chunk detected", SIGABRT). Decoders never pass -logfn.
 */
export function setPocketSphinxLog(path: string | null): void {
  const { err_set_logfp, err_set_logfile } = loadPocketSphinx();
  if (path === null) err_set_logfp(null);
  else if (err_set_logfile(path) < 0) throw new Error(`cannot open the PocketSphinx log ${path}`);
}

function declare(library: string | undefined) {
  // sphinxbase first, from the same folder as a configured library: libpocketsphinx needs it, and the dynamic loader
  // would otherwise look for it only on the system's paths.
  const besideLibrary = library && join(dirname(library), 'libsphinxbase.so.3');
  const sb = koffi.load(besideLibrary && existsSync(besideLibrary) ? besideLibrary : 'libsphinxbase.so.3');
  const ps = koffi.load(library ?? 'libpocketsphinx.so.3');
  return {
    ps_args: ps.func('void *ps_args()'),
    cmd_ln_parse_r: sb.func('void *cmd_ln_parse_r(void *inout, void *defn, int argc, const char **argv, int strict)'),
    cmd_ln_free_r: sb.func('int cmd_ln_free_r(void *config)'),
    ps_init: ps.func('void *ps_init(void *config)'),
    ps_free: ps.func('int ps_free(void *ps)'),
    ps_get_config: ps.func('void *ps_get_config(void *ps)'),
    ps_get_logmath: ps.func('void *ps_get_logmath(void *ps)'),
    ps_start_utt: ps.func('int ps_start_utt(void *ps)'),
    ps_process_raw: ps.func(
      'int ps_process_raw(void *ps, const int16_t *data, size_t n_samples, int no_search, int full_utt)',
    ),
    ps_end_utt: ps.func('int ps_end_utt(void *ps)'),
    ps_get_n_frames: ps.func('int ps_get_n_frames(void *ps)'),
    ps_get_hyp: ps.func('const char *ps_get_hyp(void *ps, _Out_ int *score)'),
    ps_seg_iter: ps.func('void *ps_seg_iter(void *ps)'),
    ps_seg_next: ps.func('void *ps_seg_next(void *seg)'),
    ps_seg_word: ps.func('const char *ps_seg_word(void *seg)'),
    ps_seg_frames: ps.func('void ps_seg_frames(void *seg, _Out_ int *sf, _Out_ int *ef)'),
    ps_seg_prob: ps.func('int ps_seg_prob(void *seg, _Out_ int *ascr, _Out_ int *lscr, _Out_ int *lback)'),
    logmath_exp: sb.func('double logmath_exp(void *lmath, int p)'),
    ps_lookup_word: ps.func('void *ps_lookup_word(void *ps, const char *word)'),
    ckd_free: sb.func('void ckd_free(void *ptr)'),
    ps_get_lm: ps.func('void *ps_get_lm(void *ps, const char *name)'),
    ps_set_lm: ps.func('int ps_set_lm(void *ps, const char *name, void *lm)'),
    ps_set_search: ps.func('int ps_set_search(void *ps, const char *name)'),
    ngram_model_read: sb.func('void *ngram_model_read(void *config, const char *path, int type, void *lmath)'),
    ngram_model_set_init: sb.func(
      'void *ngram_model_set_init(void *config, void **models, const char **names, const float *weights, int n)',
    ),
    ngram_model_free: sb.func('int ngram_model_free(void *model)'),
    err_set_logfp: sb.func('void err_set_logfp(void *stream)'),
    err_set_logfile: sb.func('int err_set_logfile(const char *path)'),
  };
}

export class Decoder {
  private ps: Pointer;
  private readonly api: Api;
  /** Key of the terms search currently registered (see setTerms), if any. */
  private termsKey: string | undefined;
  private termsActive = false;

  private constructor(api: Api, ps: bigint) {
    this.api = api;
    this.ps = ps;
  }

  /**
   * A decoder for these model files. `extra` adds or overrides PocketSphinx arguments (e.g. { '-beam': '1e-60' }; not
   * -logfn, see setPocketSphinxLog). Throws when the libraries or the model cannot be loaded.
   */
  static create(paths: ModelPaths, options: { extra?: Record<string, string> } = {}): Decoder {
    const api = loadPocketSphinx(paths.library);
    const args: Record<string, string> = {
      '-hmm': paths.hmm,
      '-lm': paths.lm,
      '-dict': paths.dict,
      '-remove_silence': 'no',
      ...options.extra,
    };
    if ('-logfn' in args) throw new Error('-logfn is process-wide and not thread-safe: use setPocketSphinxLog');
    // argv[0] is the program name, as in main(); the rest are name/value pairs.
    const argv = ['scribe', ...Object.entries(args).flat()];
    const config = api.cmd_ln_parse_r(null, api.ps_args(), argv.length, argv, 1) as Pointer;
    if (config === null) throw new Error(`PocketSphinx rejected its arguments: ${argv.slice(1).join(' ')}`);
    const ps = api.ps_init(config) as Pointer;
    api.cmd_ln_free_r(config); // ps_init keeps its own reference
    if (ps === null) {
      throw new Error(
        `PocketSphinx could not load its model (hmm ${paths.hmm}, lm ${paths.lm}, dict ${paths.dict}); ` +
          `see its log (setPocketSphinxLog / the engine's logFile) for why`,
      );
    }
    return new Decoder(api, ps);
  }

  /**
   * Decodes `pcm` (16 kHz mono) as one whole utterance. Frames in the result start at 0 at pcm[0], whatever this
   * decoder decoded before.
   */
  decode(pcm: Int16Array): DecodedUtterance {
    const { api } = this;
    const ps = this.live();
    if (api.ps_start_utt(ps) < 0) throw new Error('ps_start_utt failed');
    if (pcm.length > 0 && api.ps_process_raw(ps, pcm, pcm.length, 0, 1) < 0) {
      api.ps_end_utt(ps);
      throw new Error('ps_process_raw failed');
    }
    if (api.ps_end_utt(ps) < 0) throw new Error('ps_end_utt failed');
    const hypothesis = (api.ps_get_hyp(ps, [0]) as string | null) ?? '';
    const logmath = api.ps_get_logmath(ps) as Pointer;
    const segments: DecodedSegment[] = [];
    // ps_seg_next frees the iterator when it returns null, so iterating to the end leaks nothing.
    for (let seg = api.ps_seg_iter(ps) as Pointer; seg !== null; seg = api.ps_seg_next(seg) as Pointer) {
      const start = [0];
      const end = [0];
      api.ps_seg_frames(seg, start, end);
      const logProbability = api.ps_seg_prob(seg, [0], [0], [0]) as number;
      const probability = api.logmath_exp(logmath, logProbability) as number;
      segments.push({
        word: api.ps_seg_word(seg) as string,
        startFrame: start[0]!,
        endFrame: end[0]!,
        probability: Math.min(1, Math.max(0, Number.isFinite(probability) ? probability : 0)),
      });
    }
    return { hypothesis, segments, frames: api.ps_get_n_frames(ps) as number };
  }

  /** The word's pronunciation in the dictionary ("D AE SH W UH D"), or undefined when it is not in it. */
  lookupWord(word: string): string | undefined {
    const pointer = this.api.ps_lookup_word(this.live(), word) as Pointer;
    if (pointer === null) return undefined;
    try {
      return koffi.decode(pointer, 'char', -1) as string;
    } finally {
      this.api.ckd_free(pointer);
    }
  }

  /**
   * Biases the following decodes towards some words: `arpaPath` is a unigram ARPA LM of them, interpolated with the
   * base LM with `weight` (its share of the probability mass, e.g. 0.005). `key` identifies the word list: the same key
   * again reuses the search already built. `null` switches back to the unbiased default search.
   */
  setTerms(terms: { key: string; arpaPath: string; weight: number } | null): void {
    const { api } = this;
    const ps = this.live();
    if (terms === null) {
      if (this.termsActive && api.ps_set_search(ps, DEFAULT_SEARCH) < 0) throw new Error('cannot restore the LM');
      this.termsActive = false;
      return;
    }
    if (this.termsKey !== terms.key) {
      const config = api.ps_get_config(ps) as Pointer;
      const logmath = api.ps_get_logmath(ps) as Pointer;
      const base = api.ps_get_lm(ps, DEFAULT_SEARCH) as Pointer;
      if (base === null) throw new Error('the decoder has no default language model');
      const termsLm = api.ngram_model_read(config, terms.arpaPath, NGRAM_ARPA, logmath) as Pointer;
      if (termsLm === null) throw new Error(`cannot read the terms language model ${terms.arpaPath}`);
      // The set retains both models and the search retains the set, so our references can go right away.
      const set = api.ngram_model_set_init(
        config,
        [base, termsLm],
        ['base', 'terms'],
        [1 - terms.weight, terms.weight],
        2,
      ) as Pointer;
      api.ngram_model_free(termsLm);
      if (set === null) throw new Error('cannot build the interpolated language model');
      // Switch away before replacing a search that may be the current one.
      if (this.termsActive) api.ps_set_search(ps, DEFAULT_SEARCH);
      this.termsActive = false;
      const added = api.ps_set_lm(ps, TERMS_SEARCH, set) as number;
      api.ngram_model_free(set);
      if (added < 0) {
        this.termsKey = undefined;
        throw new Error('cannot build the search for the terms language model');
      }
      this.termsKey = terms.key;
    }
    if (api.ps_set_search(ps, TERMS_SEARCH) < 0) throw new Error('cannot switch to the terms search');
    this.termsActive = true;
  }

  free(): void {
    if (this.ps === null) return;
    this.api.ps_free(this.ps);
    this.ps = null;
  }

  private live(): bigint {
    if (this.ps === null) throw new Error('the decoder has been freed');
    return this.ps;
  }
}
