// One stream session's recognition, inside a stream worker: resamples the audio to 16 kHz, finds utterances with a
// frame-level voice activity detector and feeds only those to its streaming decoder (silence costs no decoding), and
// turns what the decoder says into the protocol's results:
//  - an utterance starts after 30 ms above the speech threshold, with the 300 ms before it fed too (pre-roll);
//  - it ends when `endpointing` ms (the session's setting) have passed since the end of the last word the decoder
//    found and the energy has been quiet for 30 ms, or after `endpointing` ms below the speech threshold, or at
//    `maxUtterance`: then a `transcript.final` covers the span from the end of the previous final to here, so
//    consecutive finals never overlap and leave no gap. Of the silence only the first 300 ms are fed (the tail);
//  - ending costs one ps_end_utt: every frame up to the pause was decoded as it arrived (the partials read that running
//    search), so the final is the search's best path, not a second decode of the utterance;
//  - while an utterance runs, a `transcript.partial` goes out for every `partialInterval` of audio (200 ms: two 100 ms
//    chunks), with the decoder's running hypothesis;
//  - `finalize` ends the span now (an empty final when it holds no speech), `end` does the same when audio is left.
// The speech threshold follows the noise floor of the energy smoothed over 50 ms: 12 dB above it (never below 35 dB ≈
// -55 dBFS); the floor falls fast towards quieter frames and rises 2 dB a second, so it tracks a changing room without
// taking speech for noise.
// Positions are seconds of session audio, from the 16 kHz sample count (the resampler's delay is one sample).
import type { StreamTranscriptFinal, StreamTranscriptPartial } from '../../../generated/client/types.gen.ts';
import { roundTime } from '../transcriptions/engine/engine.ts';
import { toEngineWords } from '../transcriptions/engine/pocketsphinx/words.ts';
import { Resampler, TARGET_RATE } from './resampler.ts';
import { FRAME, FRAME_MS, FrameEnergy, MIN_SPEECH_DB, SPEECH_START_FRAMES } from './speech-energy.ts';
import type { FinishedUtterance } from './stream-decoder.ts';

export type RecognizerEvent = StreamTranscriptPartial | StreamTranscriptFinal;

/** What the recognizer needs of a decoder (the real StreamDecoder in the worker). */
export interface UtteranceDecoder {
  start(): void;
  feed(pcm: Int16Array): void;
  hypothesis(): string;
  /** Seconds from the utterance's start to the end of the last word found so far (undefined: none yet). */
  lastWordEnd(): number | undefined;
  finish(): FinishedUtterance;
}

export interface RecognizerOptions {
  sampleRate: number;
  interimResults: boolean;
  wordTimestamps: boolean;
  /** Seconds of audio between partials. Default 0.2. */
  partialInterval?: number;
  /** Milliseconds of silence that end an utterance, or false: only finalize, end and maxUtterance do. Default 300. */
  endpointing?: number | false;
  /** Seconds of audio before the detected speech start that are fed too. Default 0.3. */
  preRoll?: number;
  /** Seconds: an utterance this long is ended even without a pause. Default 20. */
  maxUtterance?: number;
}

/** The contract's default of `endpointing` (StreamSessionConfig); the server always passes the applied value. */
const DEFAULT_ENDPOINTING_MS = 300;
const DEFAULT_PARTIAL_INTERVAL = 0.2;
/** Frames of silence after speech that the decoder gets (the word's fading end, the search's closing silence). */
const TAIL_FRAMES = 30;
/**
 * The decoder's word end is trusted once the energy has stayed this many frames under the floor + QUIET_ABOVE_FLOOR_DB
 * (looser than the speech threshold: a word's fading end is quiet, the word being spoken is not), or under halfway
 * between the floor and the utterance's loudest energy when that is lower (a quiet speaker's words stay speech).
 */
const QUIET_FRAMES = 3;
const QUIET_ABOVE_FLOOR_DB = 18;

export class Recognizer {
  private readonly resampler: Resampler;
  private readonly o: Required<Omit<RecognizerOptions, 'sampleRate'>>;
  /** 16 kHz samples processed (whole frames). */
  private position = 0;
  /** Samples of an incomplete 10 ms frame, waiting for the rest. */
  private carry = new Int16Array(0);
  private spanStart = 0;
  private speech = false;
  private speechRun = 0;
  private silenceRun = 0;
  /** Frames in a row with the energy low enough for a word's fading end (see QUIET_FRAMES). */
  private quietRun = 0;
  /** The loudest smoothed energy of the running utterance (dB). */
  private level = 0;
  private utteranceStart = 0;
  private lastPartial = 0;
  /** Recent frames while not in an utterance (the pre-roll). */
  private recent: Int16Array[] = [];
  /** Silent frames of the current utterance after its tail, fed only if speech resumes. */
  private held: Int16Array[] = [];
  /** Frames of the current utterance not yet fed (fed once per push: fewer native calls). */
  private toFeed: Int16Array[] = [];
  /** The smoothed energy and its noise floor. */
  private readonly energy = new FrameEnergy();

  constructor(
    private readonly decoder: UtteranceDecoder,
    options: RecognizerOptions,
  ) {
    this.resampler = new Resampler(options.sampleRate);
    this.o = {
      interimResults: options.interimResults,
      wordTimestamps: options.wordTimestamps,
      partialInterval: options.partialInterval ?? DEFAULT_PARTIAL_INTERVAL,
      endpointing: options.endpointing ?? DEFAULT_ENDPOINTING_MS,
      preRoll: options.preRoll ?? 0.3,
      maxUtterance: options.maxUtterance ?? 20,
    };
  }

  /** Seconds of (16 kHz) audio processed so far. */
  get seconds(): number {
    return this.position / TARGET_RATE;
  }

  /** Audio at the session's sample rate; returns the results it completes. */
  push(input: Int16Array): RecognizerEvent[] {
    const events: RecognizerEvent[] = [];
    let pcm = this.resampler.push(input);
    if (this.carry.length > 0) {
      const joined = new Int16Array(this.carry.length + pcm.length);
      joined.set(this.carry);
      joined.set(pcm, this.carry.length);
      pcm = joined;
    }
    const whole = pcm.length - (pcm.length % FRAME);
    for (let offset = 0; offset < whole; offset += FRAME) this.frame(pcm.subarray(offset, offset + FRAME), events);
    this.carry = pcm.slice(whole);
    this.flushFeed();
    if (this.speechEnded()) events.push(this.close());
    if (
      this.speech &&
      this.o.interimResults &&
      this.position - this.lastPartial >= this.o.partialInterval * TARGET_RATE
    ) {
      this.lastPartial = this.position;
      events.push({
        type: 'transcript.partial',
        text: this.decoder.hypothesis(),
        start: roundTime(this.spanStart / TARGET_RATE),
        end: roundTime(this.position / TARGET_RATE),
      });
    }
    return events;
  }

  /** Ends the span now: one final, empty when it holds no speech. */
  finalize(): RecognizerEvent[] {
    this.absorbCarry();
    return [this.close()];
  }

  /** The last final, when audio is left that no final covered. */
  end(): RecognizerEvent[] {
    this.absorbCarry();
    return this.speech || this.position > this.spanStart ? [this.close()] : [];
  }

  private frame(frame: Int16Array, events: RecognizerEvent[]): void {
    const energy = this.energy.next(frame);
    const loud = this.energy.loud(energy);
    const start = this.position;
    this.position += frame.length;

    if (!this.speech) {
      this.recent.push(frame);
      const keep = Math.ceil((this.o.preRoll * TARGET_RATE) / FRAME) + SPEECH_START_FRAMES;
      if (this.recent.length > keep) this.recent.shift();
      this.speechRun = loud ? this.speechRun + 1 : 0;
      if (this.speechRun >= SPEECH_START_FRAMES) {
        this.speech = true;
        this.silenceRun = 0;
        this.quietRun = 0;
        this.level = energy;
        const fed = this.recent.reduce((n, f) => n + f.length, 0);
        this.utteranceStart = start + frame.length - fed;
        this.lastPartial = this.position;
        this.decoder.start();
        this.toFeed.push(...this.recent);
        this.recent = [];
      }
      return;
    }
    this.level = Math.max(this.level, energy);
    const quietAbove = Math.min(QUIET_ABOVE_FLOOR_DB, (this.level - this.energy.floor) / 2);
    this.quietRun = energy < Math.max(this.energy.floor + quietAbove, MIN_SPEECH_DB) ? this.quietRun + 1 : 0;
    this.silenceRun = loud ? 0 : this.silenceRun + 1;
    // Silence past the tail waits: fed when speech resumes (word times count every frame), dropped when the
    // utterance ends, so a longer `endpointing` neither costs decoding nor moves the running cepstral mean.
    if (loud || this.silenceRun <= TAIL_FRAMES) {
      this.toFeed.push(...this.held, frame);
      this.held = [];
    } else this.held.push(frame);
    const ended = this.o.endpointing !== false && this.silenceRun * FRAME_MS >= this.o.endpointing;
    const tooLong = this.position - this.utteranceStart >= this.o.maxUtterance * TARGET_RATE;
    if (ended || tooLong) events.push(this.close());
  }

  /**
   * Whether `endpointing` ms have passed since the end of the last word the decoder found, now that the energy has
   * been low for a moment too. The energy alone hears a word's fading end (a final "s", breath, the room's echo) as
   * speech for another 0.1–0.3 s after the decoder has put it into the closing silence; the decoder alone takes the
   * word it is in the middle of for finished, so the two together answer that much sooner without cutting a word.
   */
  private speechEnded(): boolean {
    if (!this.speech || this.o.endpointing === false || this.quietRun < QUIET_FRAMES) return false;
    const lastWordEnd = this.decoder.lastWordEnd();
    if (lastWordEnd === undefined) return false;
    return this.position / TARGET_RATE - (this.utteranceStart / TARGET_RATE + lastWordEnd) >= this.o.endpointing / 1000;
  }

  private flushFeed(): void {
    if (this.toFeed.length === 0) return;
    const length = this.toFeed.reduce((n, f) => n + f.length, 0);
    const pcm = new Int16Array(length);
    let at = 0;
    for (const f of this.toFeed) {
      pcm.set(f, at);
      at += f.length;
    }
    this.toFeed = [];
    this.decoder.feed(pcm);
  }

  /** The samples of an incomplete frame count at finalize/end (they are audio the client sent). */
  private absorbCarry(): void {
    if (this.carry.length === 0) return;
    if (this.speech) (this.held.length > 0 ? this.held : this.toFeed).push(this.carry);
    this.position += this.carry.length;
    this.carry = new Int16Array(0);
  }

  /** The final of the span that ends here. */
  private close(): StreamTranscriptFinal {
    this.flushFeed();
    const start = roundTime(this.spanStart / TARGET_RATE);
    const end = roundTime(this.position / TARGET_RATE);
    let words: ReturnType<typeof toEngineWords> = [];
    if (this.speech) {
      const utterance = this.decoder.finish();
      words = toEngineWords(utterance.segments, this.utteranceStart / TARGET_RATE);
    }
    this.speech = false;
    this.speechRun = 0;
    this.silenceRun = 0;
    this.recent = [];
    this.held = [];
    this.spanStart = this.position;
    const final: StreamTranscriptFinal = {
      type: 'transcript.final',
      text: words.map((w) => w.word).join(' '),
      start,
      end,
    };
    if (this.o.wordTimestamps)
      final.words = words.map((w) => ({ word: w.word, start: Math.max(start, w.start), end: Math.min(end, w.end) }));
    return final;
  }
}
