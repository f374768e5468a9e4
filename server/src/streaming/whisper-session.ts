// One stream session on the Whisper engine. Whisper decodes whole windows (up to 30 s), not a growing utterance, so
// the session keeps a rolling buffer of the audio after the last settled word and has it decoded again each time
// `step` seconds of new audio have arrived (one decode in flight per session; a slow engine makes the steps longer, not
// the queue deeper). Every decode's words go through the LocalAgreement-2 policy (local-agreement.ts):
//  - the words two consecutive decodes agree on are settled: a `transcript.final` from the end of the previous final
//    to the end of its last word, so consecutive finals never overlap and leave no gap;
//  - the rest of the latest decode is the running hypothesis: a `transcript.partial` (with `interim_results`);
//  - once the buffer holds more than `trimAfter` seconds it is cut at the end of the settled words (what was settled
//    before the cut becomes the decoder's prompt, so the next window continues that text); a buffer that reaches
//    `maxWindow` without agreement is settled as it is (Whisper's window is 30 s: beyond it a decode costs twice);
//  - a pause of `endpointing` ms after speech, `finalize` and `end` settle the whole buffer: one last decode of it,
//    every word settled, the final ending where the audio does (`finalize` with nothing new: an empty final).
// Windows without speech (by energy, speech-energy.ts) are not decoded: Whisper makes words up from silence.
// A decode that fails (the model process crashed, or overran its deadline and was killed) ends the session through
// `onFailure`; nothing waits for a decode that cannot come.
// Times are seconds of session audio at 16 kHz (after resampling).
import type { StreamTranscriptFinal } from '../../../generated/client/types.gen.ts';
import { roundTime } from '../transcriptions/engine/engine.ts';
import {
  agree,
  initialAgreement,
  settleAll,
  type AgreementState,
  type AgreementStep,
  type TimedWord,
} from './local-agreement.ts';
import type { RecognizerEvent, RecognizerOptions } from './recognizer.ts';
import { Resampler, TARGET_RATE } from './resampler.ts';
import { SpeechEnergy } from './speech-energy.ts';

/** Decodes a window of 16 kHz samples: words in seconds from its first sample, and the language told or detected. */
export type WindowDecoder = (
  pcm: Int16Array,
  language: string,
  prompt: string | undefined,
) => Promise<{ words: TimedWord[]; language: string }>;

export interface WhisperSessionOptions extends RecognizerOptions {
  /** The session's language (a code the engine supports, or `auto`). */
  language: string;
  /** Seconds of new audio between decodes. Default 1. */
  step?: number;
  /** Seconds of buffer after which it is cut at the settled words. Default 15. */
  trimAfter?: number;
  /** Seconds of buffer that are settled as they are when the decodes never agreed. Default 25. */
  maxWindow?: number;
}

export interface WhisperSessionHandlers {
  onEvents(events: RecognizerEvent[]): void;
  onFailure(message: string): void;
}

const DEFAULT_ENDPOINTING_MS = 300;
/** Characters of settled text given as the prompt (whisper_streaming gives 200). */
const PROMPT_CHARS = 200;

interface Mark {
  kind: 'finalize' | 'end';
  /** The sample the final ends at: the audio received when it was asked for. */
  at: number;
  done: () => void;
}

export class WhisperSession {
  private readonly resampler: Resampler;
  private readonly energy = new SpeechEnergy();
  private readonly step: number;
  private readonly trimAfter: number;
  private readonly maxWindow: number;
  private readonly endpointing: number | false;
  private language: string;
  /** The audio from `bufferStart` on (`length` samples used). */
  private buffer = new Int16Array(TARGET_RATE * 8);
  private length = 0;
  private bufferStart = 0;
  /** Samples received (16 kHz). */
  private total = 0;
  /** Where the span of the next final starts (the end of the last one). */
  private spanStart = 0;
  /** The end of the audio the last decode saw. */
  private decodedTo = 0;
  /** Audio that needs no more work: decoded, or silence that needs none. */
  private processed = 0;
  private inputBytes = 0;
  private state: AgreementState = initialAgreement();
  /** Settled words whose audio was cut from the buffer: the next decodes' prompt. */
  private context = '';
  /** Settled words still inside the buffer (moved to `context` at the cut). */
  private settledInBuffer: string[] = [];
  private readonly marks: Mark[] = [];
  private running = false;
  private decoding = false;
  private closed = false;

  constructor(
    private readonly options: WhisperSessionOptions,
    private readonly decode: WindowDecoder,
    private readonly handlers: WhisperSessionHandlers,
  ) {
    this.resampler = new Resampler(options.sampleRate);
    this.language = options.language;
    this.step = options.step ?? 1;
    this.trimAfter = options.trimAfter ?? 15;
    this.maxWindow = options.maxWindow ?? 25;
    this.endpointing = options.endpointing ?? DEFAULT_ENDPOINTING_MS;
  }

  /** Audio bytes (at the session's rate) that no decode has covered yet. */
  get pendingBytes(): number {
    const done = Math.round((this.processed * this.options.sampleRate) / TARGET_RATE) * 2;
    return Math.max(0, this.inputBytes - done);
  }

  /** Whether a decode runs or a `finalize`/`end` waits. */
  get busy(): boolean {
    return this.decoding || this.marks.length > 0;
  }

  /** Whole samples of pcm_s16le at the session's rate. */
  push(input: Int16Array): void {
    if (this.closed) return;
    this.inputBytes += input.length * 2;
    const pcm = this.resampler.push(input);
    this.append(pcm);
    this.energy.push(pcm);
    void this.pump();
  }

  finalize(): void {
    if (this.closed) return;
    this.marks.push({ kind: 'finalize', at: this.total, done: () => undefined });
    void this.pump();
  }

  /** Resolves once the last final was handed to onEvents (or at once when the session already failed). */
  end(): Promise<void> {
    if (this.closed) return Promise.resolve();
    return new Promise((resolve) => {
      this.marks.push({ kind: 'end', at: this.total, done: resolve });
      void this.pump();
    });
  }

  /** Drops the session: a decode in flight is left to finish and its result is discarded. */
  close(): void {
    this.closed = true;
    for (const mark of this.marks.splice(0)) mark.done();
  }

  private append(pcm: Int16Array): void {
    if (this.length + pcm.length > this.buffer.length) {
      const grown = new Int16Array(Math.max(this.buffer.length * 2, this.length + pcm.length));
      grown.set(this.buffer.subarray(0, this.length));
      this.buffer = grown;
    }
    this.buffer.set(pcm, this.length);
    this.length += pcm.length;
    this.total += pcm.length;
  }

  /** Drops the buffer's audio before sample `at` (absolute); the settled words in it become the prompt. */
  private cut(at: number): void {
    const drop = Math.min(this.length, Math.max(0, at - this.bufferStart));
    if (drop === 0) return;
    this.buffer.copyWithin(0, drop, this.length);
    this.length -= drop;
    this.bufferStart += drop;
    this.context = `${this.context} ${this.settledInBuffer.join(' ')}`.trim().slice(-PROMPT_CHARS);
    this.settledInBuffer = [];
  }

  private speechAfter(sample: number): boolean {
    return this.energy.lastSpeechEnd > sample;
  }

  /** The sample a pause ends the span at, when `endpointing` ms of quiet followed speech in the buffer. */
  private pauseAt(): number | undefined {
    if (this.endpointing === false || !this.speechAfter(this.spanStart)) return undefined;
    const quiet = this.total - this.energy.lastSpeechEnd;
    return quiet * 1000 >= this.endpointing * TARGET_RATE ? this.total : undefined;
  }

  /** Runs what is due, one decode at a time, until nothing is. */
  private async pump(): Promise<void> {
    if (this.running || this.closed) return;
    this.running = true;
    try {
      while (!this.closed) {
        const mark = this.marks[0];
        if (mark) {
          await this.settleSpan(mark.at, mark.kind === 'finalize');
          this.marks.shift();
          mark.done();
          continue;
        }
        const pause = this.pauseAt();
        if (pause !== undefined) {
          await this.settleSpan(pause, false);
          continue;
        }
        if (!this.speechAfter(this.bufferStart)) {
          this.processed = this.total;
          break;
        }
        if (this.total - this.decodedTo < this.step * TARGET_RATE) break;
        await this.advance();
      }
    } catch (error) {
      if (!this.closed) {
        this.close();
        this.handlers.onFailure(error instanceof Error ? error.message : String(error));
      }
    } finally {
      this.running = false;
    }
  }

  /** Decodes the buffer up to sample `to`; words in session seconds. */
  private async decodeTo(to: number): Promise<TimedWord[]> {
    if (to <= this.bufferStart) return [];
    const pcm = this.buffer.slice(0, to - this.bufferStart);
    const offset = this.bufferStart / TARGET_RATE;
    const prompt = this.context || undefined;
    this.decoding = true;
    try {
      const result = await this.decode(pcm, this.language, prompt);
      // `auto` detects once: the next windows of the session keep that language (a short window's detection wavers).
      if (result.words.length > 0 && this.language === 'auto') this.language = result.language;
      this.decodedTo = to;
      this.processed = Math.max(this.processed, to);
      return result.words.map((w) => ({ word: w.word, start: w.start + offset, end: w.end + offset }));
    } finally {
      this.decoding = false;
    }
  }

  /** One step: decode the buffer, settle what two decodes agree on, send the rest as the partial. */
  private async advance(): Promise<void> {
    // At most one window: audio that piled up behind a slow decode is taken a window at a time (the session falls
    // behind, and the connection's bound on unprocessed audio ends it), never as one ever longer decode.
    const to = Math.min(this.total, this.bufferStart + Math.round(this.maxWindow * TARGET_RATE));
    const words = await this.decodeTo(to);
    if (this.closed) return;
    if ((to - this.bufferStart) / TARGET_RATE >= this.maxWindow) {
      // No agreement within Whisper's window: settle it as it is rather than decode ever longer windows.
      const step = settleAll(this.state, words);
      this.emit([this.final(step.settled, to)]);
      this.restart(to, step);
      return;
    }
    const step = agree(this.state, words);
    this.state = step.state;
    const events: RecognizerEvent[] = [];
    if (step.settled.length > 0) {
      const end = Math.max(this.spanStart, Math.round(step.state.settledEnd * TARGET_RATE));
      events.push(this.final(step.settled, Math.min(end, to)));
      this.settledInBuffer.push(...step.settled.map((w) => w.word));
      if (this.length / TARGET_RATE > this.trimAfter) this.cut(this.spanStart);
    }
    if (this.options.interimResults) {
      events.push({
        type: 'transcript.partial',
        text: step.tentative.map((w) => w.word).join(' '),
        start: roundTime(this.spanStart / TARGET_RATE),
        end: roundTime(to / TARGET_RATE),
      });
    }
    this.emit(events);
  }

  /**
   * Settles the span up to sample `at` (a pause, `finalize`, `end`): one last decode of the buffer when it holds
   * speech the last decode did not see, every word settled, the final ending at `at`. `always`: a final even when the
   * span is empty (the answer to `finalize`).
   */
  private async settleSpan(at: number, always: boolean): Promise<void> {
    let words: TimedWord[] = [];
    if (this.speechAfter(Math.max(this.bufferStart, this.spanStart))) {
      words = this.decodedTo === at ? [...this.state.previous] : await this.decodeTo(at);
      if (this.closed) return;
    }
    const step = settleAll(this.state, words);
    if (always || at > this.spanStart || step.settled.length > 0) this.emit([this.final(step.settled, at)]);
    this.processed = Math.max(this.processed, at);
    this.restart(at, step);
  }

  /** After a span settled up to `at`: the buffer starts there and the next decode is compared with nothing. */
  private restart(at: number, step: AgreementStep): void {
    this.settledInBuffer.push(...step.settled.map((w) => w.word));
    this.state = { ...initialAgreement(at / TARGET_RATE), settledTail: step.state.settledTail };
    this.decodedTo = Math.max(this.decodedTo, at);
    this.cut(at);
  }

  /** The final of the span from the end of the last one to sample `end`, with the settled words. */
  private final(words: TimedWord[], end: number): StreamTranscriptFinal {
    const start = roundTime(this.spanStart / TARGET_RATE);
    const stop = roundTime(Math.max(this.spanStart, end) / TARGET_RATE);
    this.spanStart = Math.max(this.spanStart, end);
    const final: StreamTranscriptFinal = {
      type: 'transcript.final',
      text: words.map((w) => w.word).join(' '),
      start,
      end: stop,
    };
    if (this.options.wordTimestamps) {
      let floor = start;
      final.words = words.map((w) => {
        const wordStart = roundTime(Math.min(stop, Math.max(floor, w.start)));
        floor = wordStart;
        return { word: w.word, start: wordStart, end: roundTime(Math.min(stop, Math.max(wordStart, w.end))) };
      });
    }
    return final;
  }

  private emit(events: RecognizerEvent[]): void {
    if (!this.closed && events.length > 0) this.handlers.onEvents(events);
  }
}
