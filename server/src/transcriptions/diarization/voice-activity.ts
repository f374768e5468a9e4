// Energy-based voice activity detection: which 10 ms frames carry speech. Only those frames feed the speaker models,
// because silence and background noise look the same for every speaker and would blur the differences between them
// (digital silence would even make covariance matrices singular).
//
// The threshold adapts to the recording: a histogram of frame energies (0.5 dB bins, so memory does not grow with the
// audio) gives a noise level (5th percentile) and a speech level (95th percentile); frames above
// noise + 30 % of the distance between the two are speech, but the threshold never sits more than 30 dB below the
// speech level (digital silence at 0 dB would otherwise drag it down into the breath noise). When the two levels are
// close the file has no usable silence (continuous speech or pure noise) and every frame above an absolute floor
// counts. Isolated bursts shorter than 5 frames are removed (a 20 ms click already touches 4 overlapping 25 ms
// frames). Frames are not padded with hangover on purpose: the low-energy edges of words add little speaker
// information and would mix silence into the models.
//
// The runs of non-speech between speech frames are also where speaker turns usually happen: diarize.ts turns the
// longer ones into pauses that detected changes snap to (see change-detection.ts).

const BIN_DB = 0.5;
const BINS = 200; // 0–100 dB; int16 audio tops out near 90 dB
const NOISE_PERCENTILE = 0.05;
const SPEECH_PERCENTILE = 0.95;
const THRESHOLD_FRACTION = 0.3;
/** The threshold is at least this close (dB) to the speech level. */
const MAX_DEPTH_DB = 30;
/** Below this dynamic range (dB) the file is treated as having no silence to learn from. */
const MIN_DYNAMIC_RANGE_DB = 10;
/** Frames quieter than this (rms ≈ 10 in int16 units) are never speech. */
const ABSOLUTE_FLOOR_DB = 20;
const MIN_BURST_FRAMES = 5;

function percentile(histogram: Uint32Array, total: number, fraction: number): number {
  const target = fraction * total;
  let seen = 0;
  for (let bin = 0; bin < histogram.length; bin++) {
    seen += histogram[bin]!;
    if (seen >= target) return (bin + 0.5) * BIN_DB;
  }
  return histogram.length * BIN_DB;
}

/** The energy threshold (dB) above which a frame counts as speech. */
export function speechThreshold(energies: Float32Array): number {
  const histogram = new Uint32Array(BINS);
  for (const db of energies) histogram[Math.min(BINS - 1, Math.max(0, Math.floor(db / BIN_DB)))]! += 1;
  const noise = percentile(histogram, energies.length, NOISE_PERCENTILE);
  const speech = percentile(histogram, energies.length, SPEECH_PERCENTILE);
  if (speech - noise < MIN_DYNAMIC_RANGE_DB) return ABSOLUTE_FLOOR_DB;
  return Math.max(ABSOLUTE_FLOOR_DB, noise + THRESHOLD_FRACTION * (speech - noise), speech - MAX_DEPTH_DB);
}

/** Per-frame speech flags (1 = speech) from per-frame energies in dB. */
export function detectSpeech(energies: Float32Array): Uint8Array {
  const threshold = speechThreshold(energies);
  const speech = new Uint8Array(energies.length);
  for (let t = 0; t < energies.length; t++) speech[t] = energies[t]! > threshold ? 1 : 0;
  // Remove bursts too short to be speech.
  let t = 0;
  while (t < speech.length) {
    if (!speech[t]) {
      t++;
      continue;
    }
    let end = t;
    while (end < speech.length && speech[end]) end++;
    if (end - t < MIN_BURST_FRAMES) speech.fill(0, t, end);
    t = end;
  }
  return speech;
}
