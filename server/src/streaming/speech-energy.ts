// Where speech is, from the energy of 10 ms frames of 16 kHz audio: the same rule as the PocketSphinx recognizer's
// (recognizer.ts) — the energy smoothed over 50 ms is speech when it is 12 dB above a noise floor that falls fast towards
// quieter frames and rises 2 dB a second (never below 35 dB ≈ -55 dBFS). The Whisper stream uses it to decode only
// windows that hold speech (Whisper makes words up from silence, and a silent window's decode is wasted compute) and
// to end a span at a pause (`endpointing`).
import { TARGET_RATE } from './resampler.ts';

/** The rule's constants; the frame, threshold and start run are shared with the PocketSphinx recognizer. */
export const FRAME_MS = 10;
export const FRAME = (TARGET_RATE * FRAME_MS) / 1000;
const SMOOTHING_FRAMES = 5;
export const MIN_SPEECH_DB = 35;
const ABOVE_FLOOR_DB = 12;
const FLOOR_RISE_PER_FRAME = 0.02;
/** Frames in a row above the threshold before they count as speech (a click is not). */
export const SPEECH_START_FRAMES = 3;

/**
 * The energy of each 10 ms frame smoothed over the last 5 (50 ms: room noise has single loud frames, clicks and
 * breath, that would otherwise keep an utterance from ending; speech is loud for longer), and the noise floor it
 * follows. Both speech detectors step it once per frame.
 */
export class FrameEnergy {
  /** The noise floor (dB). */
  floor = 30;
  private readonly powers = new Float64Array(SMOOTHING_FRAMES);
  private powerIndex = 0;

  /** The frame's smoothed energy (dB), after which the floor has moved towards it. */
  next(frame: Int16Array): number {
    let sum = 0;
    for (let i = 0; i < frame.length; i++) sum += frame[i]! * frame[i]!;
    this.powers[this.powerIndex] = sum / frame.length;
    this.powerIndex = (this.powerIndex + 1) % this.powers.length;
    const energy = 10 * Math.log10(this.powers.reduce((a, b) => a + b, 0) / this.powers.length + 1);
    if (energy < this.floor) this.floor = 0.8 * this.floor + 0.2 * energy;
    else this.floor += Math.min(FLOOR_RISE_PER_FRAME, energy - this.floor);
    return energy;
  }

  /** Whether an energy is loud enough for speech: 12 dB above the floor, never below 35 dB. */
  loud(energy: number): boolean {
    return energy > Math.max(this.floor + ABOVE_FLOOR_DB, MIN_SPEECH_DB);
  }
}

export class SpeechEnergy {
  private carry = new Int16Array(0);
  private readonly energy = new FrameEnergy();
  private loudRun = 0;
  /** Samples seen (whole frames). */
  private position = 0;
  /** Sample index just after the last speech frame (-1: none yet). */
  lastSpeechEnd = -1;

  /** Feeds 16 kHz samples (any length; an incomplete frame waits for the rest). */
  push(pcm: Int16Array): void {
    let samples = pcm;
    if (this.carry.length > 0) {
      samples = new Int16Array(this.carry.length + pcm.length);
      samples.set(this.carry);
      samples.set(pcm, this.carry.length);
    }
    const whole = samples.length - (samples.length % FRAME);
    for (let offset = 0; offset < whole; offset += FRAME) this.frame(samples.subarray(offset, offset + FRAME));
    this.carry = samples.slice(whole);
  }

  private frame(frame: Int16Array): void {
    const loud = this.energy.loud(this.energy.next(frame));
    this.position += frame.length;
    this.loudRun = loud ? this.loudRun + 1 : 0;
    if (this.loudRun >= SPEECH_START_FRAMES) this.lastSpeechEnd = this.position;
  }
}
