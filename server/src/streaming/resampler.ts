// Converts a stream's pcm_s16le audio at its `sample_rate` (8000–48000) to the 16 kHz the decoder takes, chunk by
// chunk, carrying its state across chunks so that chunk boundaries leave no trace. Linear interpolation; when the
// input rate is above 16 kHz the input first goes through a moving average as long as one output sample (a box
// low-pass with its first null at 16 kHz), which keeps the worst of the aliasing out of the 0–8 kHz band the
// acoustic model's filter bank looks at (it stops at 6.8 kHz). Not hi-fi, but cheap (O(n), no allocation beyond the
// output) and good enough for recognition — the decoder's features are coarse compared with the artefacts.
export const TARGET_RATE = 16_000;

export class Resampler {
  /** Input samples per output sample. */
  private readonly step: number;
  /** Box filter length (1 = none). */
  private readonly width: number;
  private readonly history: Float64Array;
  private historyIndex = 0;
  private historySum = 0;
  /** Absolute input position (in filtered input samples) of the next output sample. */
  private next = 0;
  /** Absolute index of the next input sample to arrive. */
  private seen = 0;
  /** The last filtered input sample (absolute index seen - 1), for interpolating across a chunk boundary. */
  private previous = 0;

  constructor(readonly inputRate: number) {
    this.step = inputRate / TARGET_RATE;
    this.width = this.step > 1 ? Math.round(this.step) : 1;
    this.history = new Float64Array(this.width);
  }

  get passthrough(): boolean {
    return this.inputRate === TARGET_RATE;
  }

  /** The 16 kHz samples that `input` completes (an output sample waits for the input sample after it). */
  push(input: Int16Array): Int16Array {
    if (this.passthrough) return input;
    const filtered = this.filter(input);
    const first = this.seen; // absolute index of filtered[0]
    const last = first + filtered.length - 1;
    const capacity = Math.max(0, Math.ceil((last - this.next) / this.step) + 1);
    const out = new Int16Array(capacity);
    let count = 0;
    while (count < capacity) {
      const index = Math.floor(this.next);
      if (index + 1 > last) break;
      const fraction = this.next - index;
      const a = index < first ? this.previous : filtered[index - first]!;
      const b = filtered[index + 1 - first]!;
      out[count++] = Math.max(-32768, Math.min(32767, Math.round(a + (b - a) * fraction)));
      this.next += this.step;
    }
    if (filtered.length > 0) this.previous = filtered[filtered.length - 1]!;
    this.seen += filtered.length;
    return count === capacity ? out : out.subarray(0, count);
  }

  private filter(input: Int16Array): Float64Array {
    const output = new Float64Array(input.length);
    if (this.width === 1) {
      for (let i = 0; i < input.length; i++) output[i] = input[i]!;
      return output;
    }
    for (let i = 0; i < input.length; i++) {
      const x = input[i]!;
      this.historySum += x - this.history[this.historyIndex]!;
      this.history[this.historyIndex] = x;
      this.historyIndex = (this.historyIndex + 1) % this.width;
      output[i] = this.historySum / this.width;
    }
    return output;
  }
}
