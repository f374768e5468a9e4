// PocketSphinx in streaming mode (worker threads only): one utterance is fed in chunks as the audio arrives
// (ps_process_raw with full_utt = 0), the running hypothesis is read after any chunk (a partial result), and ending the
// utterance gives the best path with word frames. The batch binding (transcriptions/engine/pocketsphinx/binding.ts)
// decodes whole utterances only; this uses the same koffi declarations for the incremental calls.
//
// What was measured on Debian's libpocketsphinx3 (and is relied on here):
//  - Fed in chunks, a reused decoder's frame counter is cumulative across utterances (models.md), and not exactly the
//    samples fed / 160: after a 279-frame utterance the next one's frames start at 269, the one after at 547. The
//    best path always begins with `<s>` at the utterance's first frame, so that frame is taken as the utterance's
//    origin (with the samples fed as the fallback should `<s>` ever be missing).
//  - The word frames relative to that origin equal the batch decode's (goforward.raw: identical to the frame), and
//    the text too; ending an utterance costs ≈ 110 ms (the lattice's best path), feeding is ≈ 4 × real time.
//  - `-fwdflat no`: the flat-lexicon second pass runs over the whole utterance when it ends — 0.2 s for goforward,
//    0.6 s for a 7 s reading, all of it between the speaker's pause and the final. Without it an utterance ends in
//    ≈ 10 ms, feeding costs less, and the LibriVox readings' corpus WER was the same (0.30 against 0.31 with it);
//    goforward's words keep their frames.
//  - `-maxhmmpf 3000 -maxwpf 10` (at most 3000 active HMMs and 10 word exits per frame, instead of 30000 and no
//    limit): 2.2 × less CPU per second of audio with the same corpus WER on the LibriVox readings (0.296, fed in
//    100 ms chunks, measured in CPU seconds); 2000/5 was faster still but worse (0.352). Each live session costs a
//    share of a core for as long as it lasts, so this is what sets how many sessions a machine carries.
//  - `-ds 2` (acoustic scores computed every other frame): another ≈ 30 % less CPU, corpus WER 0.282 (within the
//    noise of 71 words); word boundaries move by a frame or two (goforward: "go" at 0.45 s instead of 0.47 s).
//  - Chunked feeding switches the model's batch CMN to a running mean carried across utterances (binding.ts): that
//    is what a live stream needs within a session (the first utterance starts from the model's initial mean). A
//    decoder reused by the next session would keep it: the running sums grow with every frame fed and the mean moves
//    once 800 frames were seen, so the same audio came out differently in a later session. The library has no call
//    that resets it (ps_reinit reloads the whole model: as slow as a new decoder; cmn_live_set installs a mean with a
//    weight of 500 frames, not the fresh state), so resetCmn() writes the state captured right after ps_init back
//    into sphinxbase's cmn_t (mean, running sums, frame count) and the feature type. The offsets are those of
//    Debian's libsphinxbase3 (objdump of feat_free, cmn_init, cmn_live_set: feat_t.cmn at 0x44, feat_t.cmn_struct at
//    0x58; cmn_t = { mean*, var*, sum*, int nframe, int veclen }); create() checks them against the library's own
//    view (cepstrum size 13 in both structs, cmn_live_get() equal to the mean read), and a decoder whose check fails
//    is not reused (see `resettable`).
import koffi from 'koffi';
import { cleanWord } from '../transcriptions/engine/pocketsphinx/words.ts';
import {
  loadPocketSphinx,
  type DecodedSegment,
  type ModelPaths,
} from '../transcriptions/engine/pocketsphinx/binding.ts';

type Pointer = bigint | null;

const FRAMES_PER_SECOND = 100;

const FEAT_CEPSIZE = 0x10;
const FEAT_CMN_TYPE = 0x44;
const FEAT_CMN_STRUCT = 0x58;
const CMN_MEAN = 0x00;
const CMN_SUM = 0x10;
const CMN_NFRAME = 0x18;
const CMN_VECLEN = 0x1c;

let cmnApi: ReturnType<typeof declareCmnApi> | undefined;

function declareCmnApi() {
  const ps = koffi.load('libpocketsphinx.so.3');
  const sb = koffi.load('libsphinxbase.so.3');
  return {
    ps_get_feat: ps.func('void *ps_get_feat(void *ps)'),
    cmn_live_get: sb.func('void cmn_live_get(void *cmn, _Out_ float *vec)'),
  };
}

/** sphinxbase's CMN state of one decoder, as captured after ps_init. */
interface CmnState {
  cmn: bigint;
  veclen: number;
  type: number;
  mean: number[];
  sum: number[];
  nframe: number;
}

/** The decoder's CMN state, or undefined when the structs do not look like the ones the offsets describe. */
function readCmn(ps: bigint): CmnState | undefined {
  cmnApi ??= declareCmnApi();
  const feat = cmnApi.ps_get_feat(ps) as Pointer;
  if (feat === null) return undefined;
  const cmn = koffi.decode(feat, FEAT_CMN_STRUCT, 'void *') as Pointer;
  if (cmn === null) return undefined;
  const veclen = koffi.decode(cmn, CMN_VECLEN, 'int32') as number;
  if (veclen !== 13 || (koffi.decode(feat, FEAT_CEPSIZE, 'int32') as number) !== veclen) return undefined;
  const meanPtr = koffi.decode(cmn, CMN_MEAN, 'void *') as Pointer;
  const sumPtr = koffi.decode(cmn, CMN_SUM, 'void *') as Pointer;
  if (meanPtr === null || sumPtr === null) return undefined;
  const mean = Array.from(koffi.decode(meanPtr, 'float', veclen) as Float32Array);
  const viaLibrary: number[] = new Array<number>(veclen).fill(Number.NaN);
  cmnApi.cmn_live_get(cmn, viaLibrary);
  if (viaLibrary.some((value, i) => value !== mean[i])) return undefined;
  return {
    cmn,
    veclen,
    type: koffi.decode(feat, FEAT_CMN_TYPE, 'int32') as number,
    mean,
    sum: Array.from(koffi.decode(sumPtr, 'float', veclen) as Float32Array),
    nframe: koffi.decode(cmn, CMN_NFRAME, 'int32') as number,
  };
}

export interface FinishedUtterance {
  segments: DecodedSegment[];
  hypothesis: string;
}

export class StreamDecoder {
  private ps: Pointer;
  private readonly api = loadPocketSphinx();
  private inUtterance = false;
  /** Frames fed since this decoder was created (the fallback origin of the next utterance). */
  private framesFed = 0;
  private utteranceFrames = 0;

  /** The CMN state right after ps_init, restored by resetCmn() (undefined: this decoder cannot be reset). */
  private readonly initialCmn: CmnState | undefined;

  private constructor(ps: bigint) {
    this.ps = ps;
    this.initialCmn = readCmn(ps);
  }

  /** Whether resetCmn() can give this decoder a fresh decoder's CMN state (false: do not reuse it across sessions). */
  get resettable(): boolean {
    return this.initialCmn !== undefined;
  }

  /**
   * Back to the cepstral mean normalisation of a freshly created decoder, so the next session decodes its audio as
   * a new decoder would (between utterances only).
   */
  resetCmn(): void {
    const initial = this.initialCmn;
    const ps = this.live();
    if (!initial) throw new Error('this decoder cannot reset its CMN');
    if (this.inUtterance) throw new Error('the CMN is reset between utterances only');
    cmnApi ??= declareCmnApi();
    const feat = cmnApi.ps_get_feat(ps) as bigint;
    const { cmn, veclen } = initial;
    koffi.encode(koffi.decode(cmn, CMN_MEAN, 'void *'), 'float', initial.mean, veclen);
    koffi.encode(koffi.decode(cmn, CMN_SUM, 'void *'), 'float', initial.sum, veclen);
    koffi.encode(cmn, CMN_NFRAME, 'int32', initial.nframe);
    koffi.encode(feat, FEAT_CMN_TYPE, 'int32', initial.type);
  }

  static create(paths: ModelPaths): StreamDecoder {
    const api = loadPocketSphinx(paths.library);
    const argv = [
      'scribe',
      ...['-hmm', paths.hmm, '-lm', paths.lm, '-dict', paths.dict],
      ...['-remove_silence', 'no', '-fwdflat', 'no', '-maxhmmpf', '3000', '-maxwpf', '10', '-ds', '2'],
    ];
    const config = api.cmd_ln_parse_r(null, api.ps_args(), argv.length, argv, 1) as Pointer;
    if (config === null) throw new Error('PocketSphinx rejected its arguments');
    const ps = api.ps_init(config) as Pointer;
    api.cmd_ln_free_r(config);
    if (ps === null) throw new Error(`PocketSphinx could not load its model (${paths.hmm})`);
    return new StreamDecoder(ps);
  }

  get active(): boolean {
    return this.inUtterance;
  }

  start(): void {
    if (this.inUtterance) return;
    if (this.api.ps_start_utt(this.live()) < 0) throw new Error('ps_start_utt failed');
    this.inUtterance = true;
    this.utteranceFrames = 0;
  }

  feed(pcm: Int16Array): void {
    if (!this.inUtterance) this.start();
    if (pcm.length === 0) return;
    if (this.api.ps_process_raw(this.live(), pcm, pcm.length, 0, 0) < 0) throw new Error('ps_process_raw failed');
    this.utteranceFrames += pcm.length / 160;
  }

  /** The running hypothesis of the current utterance ('' before any word). */
  hypothesis(): string {
    if (!this.inUtterance) return '';
    return (this.api.ps_get_hyp(this.live(), [0]) as string | null) ?? '';
  }

  /**
   * Seconds from the utterance's first sample to the end of the last word of the running search's best path
   * (fillers and silences are not words), or undefined before any word. Read-only: a backtrace of the search so far,
   * with the frames of the words it has finished (a word still being spoken is not in it yet).
   */
  lastWordEnd(): number | undefined {
    if (!this.inUtterance) return undefined;
    const words = this.bestPath().filter((s) => cleanWord(s.word) !== undefined);
    const last = words.at(-1);
    return last === undefined ? undefined : (last.endFrame + 1) / FRAMES_PER_SECOND;
  }

  /** Ends the utterance; segment frames are relative to its first sample. */
  finish(): FinishedUtterance {
    const { api } = this;
    const ps = this.live();
    if (!this.inUtterance) return { segments: [], hypothesis: '' };
    this.inUtterance = false;
    if (api.ps_end_utt(ps) < 0) throw new Error('ps_end_utt failed');
    const hypothesis = (api.ps_get_hyp(ps, [0]) as string | null) ?? '';
    const segments = this.bestPath();
    this.framesFed += this.utteranceFrames;
    return { segments, hypothesis };
  }

  /** The best path's segments (of the ended utterance, or of the search so far), frames from the utterance's start. */
  private bestPath(): DecodedSegment[] {
    const { api } = this;
    const ps = this.live();
    const logmath = api.ps_get_logmath(ps) as Pointer;
    const raw: DecodedSegment[] = [];
    for (let seg = api.ps_seg_iter(ps) as Pointer; seg !== null; seg = api.ps_seg_next(seg) as Pointer) {
      const start = [0];
      const end = [0];
      api.ps_seg_frames(seg, start, end);
      const probability = api.logmath_exp(logmath, api.ps_seg_prob(seg, [0], [0], [0]) as number) as number;
      raw.push({
        word: api.ps_seg_word(seg) as string,
        startFrame: start[0]!,
        endFrame: end[0]!,
        probability: Math.min(1, Math.max(0, Number.isFinite(probability) ? probability : 0)),
      });
    }
    const origin = raw[0]?.word === '<s>' ? raw[0].startFrame : Math.round(this.framesFed);
    return raw.map((s) => ({
      ...s,
      startFrame: Math.max(0, s.startFrame - origin),
      endFrame: Math.max(0, s.endFrame - origin),
    }));
  }

  free(): void {
    if (this.ps === null) return;
    if (this.inUtterance) this.api.ps_end_utt(this.ps);
    this.api.ps_free(this.ps);
    this.ps = null;
  }

  private live(): bigint {
    if (this.ps === null) throw new Error('the decoder has been freed');
    return this.ps;
  }
}
