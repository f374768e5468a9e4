// Short-time analysis of 16 kHz mono PCM: the framing shared by every stage of diarization (25 ms windows every
// 10 ms), a cheap per-frame energy in dB for voice activity, and mel-frequency cepstral coefficients (MFCCs) as the
// speaker features. MFCCs are the classic front end of BIC-based diarization: the log mel spectrum describes the
// shape of the vocal tract and the DCT decorrelates it so that Gaussians with few parameters model it well.
//
// Recipe per frame: remove the DC offset, pre-emphasis (0.97), Hamming window, 512-point FFT (fft.js), power
// spectrum, 26 triangular mel filters over 20–7600 Hz, natural log, DCT-II (orthonormal), keep c1…c12. c0 (overall
// loudness) is dropped so that a speaker moving closer to the microphone is not mistaken for a new speaker; the
// file-wide cepstral mean and variance normalisation is applied later on speech frames only (see diarize.ts).
//
// Everything works frame by frame with preallocated buffers: nothing here is proportional to the length of the audio
// except the outputs the caller asks for.
import FFT from 'fft.js';

export const SAMPLE_RATE = 16000;
/** 25 ms analysis window. */
export const FRAME_LENGTH = 400;
/** 10 ms hop: frame t covers samples [t·160, t·160 + 400). */
export const FRAME_SHIFT = 160;
/** Seconds between frames. */
export const FRAME_SECONDS = FRAME_SHIFT / SAMPLE_RATE;
/** Time of the centre of frame 0, in seconds; frame t is centred at FRAME_CENTER_OFFSET + t·FRAME_SECONDS. */
export const FRAME_CENTER_OFFSET = FRAME_LENGTH / 2 / SAMPLE_RATE;
/** Number of cepstral coefficients kept per frame (c1…c12). */
export const MFCC_DIMENSIONS = 12;

const FFT_SIZE = 512;
const MEL_FILTERS = 26;
const LOW_HZ = 20;
const HIGH_HZ = 7600;
const PRE_EMPHASIS = 0.97;
/** Floor of a mel band energy (int16 units squared) before the log, so that digital silence stays finite. */
const MEL_FLOOR = 1e-2;

/** Number of complete frames in `samples` samples. */
export function frameCount(samples: number): number {
  return samples < FRAME_LENGTH ? 0 : 1 + Math.floor((samples - FRAME_LENGTH) / FRAME_SHIFT);
}

/**
 * Energy of every frame in dB: 10·log10(mean square + 1) of the DC-free frame in int16 units, so digital silence is
 * 0 dB and a full-scale square wave about 90 dB.
 */
export function frameEnergies(pcm: Int16Array): Float32Array {
  const frames = frameCount(pcm.length);
  const energies = new Float32Array(frames);
  for (let t = 0; t < frames; t++) {
    const start = t * FRAME_SHIFT;
    let sum = 0;
    let squares = 0;
    for (let i = start; i < start + FRAME_LENGTH; i++) {
      const x = pcm[i]!;
      sum += x;
      squares += x * x;
    }
    const mean = sum / FRAME_LENGTH;
    const variance = Math.max(0, squares / FRAME_LENGTH - mean * mean);
    energies[t] = 10 * Math.log10(variance + 1);
  }
  return energies;
}

function hzToMel(hz: number): number {
  return 1127 * Math.log(1 + hz / 700);
}

function melToHz(mel: number): number {
  return 700 * (Math.exp(mel / 1127) - 1);
}

/** Computes the MFCCs of single frames; reuse one instance for a whole file (it owns the FFT buffers). */
export class MfccExtractor {
  private readonly fft = new FFT(FFT_SIZE);
  private readonly input = new Float64Array(FFT_SIZE);
  private readonly spectrum: number[] = this.fft.createComplexArray();
  private readonly window = new Float64Array(FRAME_LENGTH);
  private readonly power = new Float64Array(FFT_SIZE / 2 + 1);
  private readonly logMel = new Float64Array(MEL_FILTERS);
  /** Per filter: first FFT bin and its weights (triangles are stored sparsely). */
  private readonly filterStart: number[] = [];
  private readonly filterWeights: Float64Array[] = [];
  /** DCT-II basis, row k-1 holds coefficient k (c0 is never computed). */
  private readonly dct = new Float64Array(MFCC_DIMENSIONS * MEL_FILTERS);

  constructor() {
    for (let i = 0; i < FRAME_LENGTH; i++)
      this.window[i] = 0.54 - 0.46 * Math.cos((2 * Math.PI * i) / (FRAME_LENGTH - 1));
    const lowMel = hzToMel(LOW_HZ);
    const highMel = hzToMel(HIGH_HZ);
    const edges: number[] = [];
    for (let m = 0; m < MEL_FILTERS + 2; m++)
      edges.push(melToHz(lowMel + ((highMel - lowMel) * m) / (MEL_FILTERS + 1)));
    const binHz = SAMPLE_RATE / FFT_SIZE;
    for (let m = 0; m < MEL_FILTERS; m++) {
      const [left, centre, right] = [edges[m]!, edges[m + 1]!, edges[m + 2]!];
      const first = Math.ceil(left / binHz);
      const last = Math.min(FFT_SIZE / 2, Math.floor(right / binHz));
      const weights = new Float64Array(Math.max(0, last - first + 1));
      for (let bin = first; bin <= last; bin++) {
        const hz = bin * binHz;
        weights[bin - first] = Math.max(
          0,
          hz <= centre ? (hz - left) / (centre - left) : (right - hz) / (right - centre),
        );
      }
      this.filterStart.push(first);
      this.filterWeights.push(weights);
    }
    const scale = Math.sqrt(2 / MEL_FILTERS);
    for (let k = 1; k <= MFCC_DIMENSIONS; k++) {
      for (let m = 0; m < MEL_FILTERS; m++) {
        this.dct[(k - 1) * MEL_FILTERS + m] = scale * Math.cos((Math.PI * k * (m + 0.5)) / MEL_FILTERS);
      }
    }
  }

  /** Writes the MFCCs (c1…c12) of frame `frame` of `pcm` to `out[offset…offset+12)`. */
  compute(pcm: Int16Array, frame: number, out: Float32Array, offset: number): void {
    const start = frame * FRAME_SHIFT;
    let sum = 0;
    for (let i = 0; i < FRAME_LENGTH; i++) sum += pcm[start + i]!;
    const mean = sum / FRAME_LENGTH;
    const input = this.input;
    let previous = pcm[start]! - mean;
    for (let i = 0; i < FRAME_LENGTH; i++) {
      const x = pcm[start + i]! - mean;
      input[i] = (x - PRE_EMPHASIS * previous) * this.window[i]!;
      previous = x;
    }
    input.fill(0, FRAME_LENGTH);
    this.fft.realTransform(this.spectrum, input);
    const spectrum = this.spectrum;
    for (let bin = 0; bin <= FFT_SIZE / 2; bin++) {
      const re = spectrum[2 * bin]!;
      const im = spectrum[2 * bin + 1]!;
      this.power[bin] = re * re + im * im;
    }
    for (let m = 0; m < MEL_FILTERS; m++) {
      const first = this.filterStart[m]!;
      const weights = this.filterWeights[m]!;
      let energy = 0;
      for (let j = 0; j < weights.length; j++) energy += weights[j]! * this.power[first + j]!;
      this.logMel[m] = Math.log(Math.max(energy, MEL_FLOOR));
    }
    for (let k = 0; k < MFCC_DIMENSIONS; k++) {
      let c = 0;
      const row = k * MEL_FILTERS;
      for (let m = 0; m < MEL_FILTERS; m++) c += this.dct[row + m]! * this.logMel[m]!;
      out[offset + k] = c;
    }
  }
}
