// Speaker-change detection over the speech frames (silence removed, frames concatenated): two adjacent windows of
// one second of speech slide along the stream and at every step the BIC compares one full-covariance Gaussian for both
// windows with one Gaussian each. Where the voices on both sides differ, ΔBIC rises to a peak centred on the change.
// Peaks with ΔBIC > 0 that are the highest within one window length are kept (greedy non-maximum suppression), so
// segments are at least about a window long — enough frames for the clustering to model them.
//
// The detection deliberately over-segments (a low penalty λ): a spurious cut inside one speaker's turn costs nothing
// because the clustering puts both halves back together, while a missed change would glue two speakers for good.
//
// Turns usually change during a pause, and a pause is a much sharper landmark than a ΔBIC peak that is blurred over
// the window length, so a change within 0.4 s of speech of a pause of at least 150 ms moves to that pause.
//
// Cost: the windows are running sufficient statistics (add the frames entering, remove the frames leaving), so each
// step is O(step·d²) plus three 12×12 Cholesky factorisations — linear in the audio, constant memory besides one score
// per step.
import { CovarianceWorkspace, GaussianStats, deltaBic } from './gaussian.ts';

export interface ChangeDetectionOptions {
  /** Frames in each of the two windows (default 100 = 1 s of speech). */
  window?: number;
  /** Frames between evaluated positions (default 5 = 50 ms). */
  step?: number;
  /** BIC penalty weight for detection (default 0.5: over-segment, clustering repairs). */
  lambda?: number;
  /** Frames of speech within which a change snaps to a pause (default 40). */
  snapRadius?: number;
}

/**
 * Positions (indices into the speech-frame stream, strictly between 0 and `count`, ascending) where the speaker
 * probably changes. `features` holds `count` frames of `d` values; `pauses` lists ascending stream positions p where a
 * pause lies between speech frames p-1 and p.
 */
export function detectChanges(
  features: Float32Array,
  count: number,
  d: number,
  pauses: readonly number[],
  options: ChangeDetectionOptions = {},
): number[] {
  const window = options.window ?? 100;
  const step = options.step ?? 5;
  const lambda = options.lambda ?? 0.5;
  const snapRadius = options.snapRadius ?? 40;
  if (count < 2 * window) return [];

  const workspace = new CovarianceWorkspace(d);
  const left = new GaussianStats(d);
  const right = new GaussianStats(d);
  left.addRange(features, 0, window);
  right.addRange(features, window, 2 * window);
  const positions: number[] = [];
  const scores: number[] = [];
  for (let t = window; ; t += step) {
    positions.push(t);
    scores.push(deltaBic(workspace, left, right, lambda));
    if (t + step + window > count) break;
    for (let k = 0; k < step; k++) {
      left.update(features, (t - window + k) * d, -1);
      left.update(features, (t + k) * d, 1);
      right.update(features, (t + k) * d, -1);
      right.update(features, (t + window + k) * d, 1);
    }
  }

  // Greedy non-maximum suppression over the positive peaks.
  const order = scores
    .map((score, i) => ({ score, i }))
    .filter((c) => c.score > 0)
    .sort((a, b) => b.score - a.score);
  const radius = Math.ceil(window / step);
  const suppressed = new Uint8Array(scores.length);
  const accepted: number[] = [];
  for (const { i } of order) {
    if (suppressed[i]) continue;
    accepted.push(positions[i]!);
    suppressed.fill(1, Math.max(0, i - radius + 1), Math.min(scores.length, i + radius));
  }
  accepted.sort((a, b) => a - b);

  // Snap to the nearest pause, then drop changes that collapsed onto each other.
  const changes: number[] = [];
  for (const t of accepted) {
    const snapped = nearestPause(pauses, t, snapRadius) ?? t;
    if (snapped > 0 && snapped < count && snapped !== changes[changes.length - 1]) changes.push(snapped);
  }
  return changes;
}

function nearestPause(pauses: readonly number[], t: number, radius: number): number | undefined {
  let lo = 0;
  let hi = pauses.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (pauses[mid]! < t) lo = mid + 1;
    else hi = mid;
  }
  let best: number | undefined;
  for (const candidate of [pauses[lo - 1], pauses[lo]]) {
    if (candidate === undefined || Math.abs(candidate - t) > radius) continue;
    if (best === undefined || Math.abs(candidate - t) < Math.abs(best - t)) best = candidate;
  }
  return best;
}
