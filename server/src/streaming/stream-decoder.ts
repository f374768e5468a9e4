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
//    is what a live stream needs anyway (the first utterance starts from the model's initial mean). A decoder
//    reused by the next session keeps that mean too (ps_start_stream resets the frame counter, not the mean, and the
//    library has no public call that does), so the same audio can come out slightly differently in a later session.
import {
  loadPocketSphinx,
  type DecodedSegment,
  type ModelPaths,
} from '../transcriptions/engine/pocketsphinx/binding.ts';

type Pointer = bigint | null;

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

  private constructor(ps: bigint) {
    this.ps = ps;
  }

  static create(paths: ModelPaths): StreamDecoder {
    const api = loadPocketSphinx();
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

  /** Ends the utterance; segment frames are relative to its first sample. */
  finish(): FinishedUtterance {
    const { api } = this;
    const ps = this.live();
    if (!this.inUtterance) return { segments: [], hypothesis: '' };
    this.inUtterance = false;
    if (api.ps_end_utt(ps) < 0) throw new Error('ps_end_utt failed');
    const hypothesis = (api.ps_get_hyp(ps, [0]) as string | null) ?? '';
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
    const fallback = Math.round(this.framesFed);
    this.framesFed += this.utteranceFrames;
    const origin = raw[0]?.word === '<s>' ? raw[0].startFrame : fallback;
    const segments = raw.map((s) => ({
      ...s,
      startFrame: Math.max(0, s.startFrame - origin),
      endFrame: Math.max(0, s.endFrame - origin),
    }));
    return { segments, hypothesis };
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
