// Bottom-up (agglomerative) clustering of speech segments into speakers. Every segment starts as its own cluster,
// modelled by one full-covariance Gaussian (sufficient statistics, so merging is adding). A linear pass first merges
// each segment into the run before it when the two are the same speaker by the criterion below (turns are usually
// longer than the segments change detection cuts); then the hierarchical pass repeatedly merges the most similar pair
// of clusters anywhere in the file until every remaining pair is too different to be one speaker.
//
// "Too different" is the generalised likelihood ratio G(a, b) — the log-likelihood gained by modelling the two
// clusters with a Gaussian each rather than one for both — exceeding a threshold T(a, b), the larger of
//   • the BIC penalty λ·½·P·log n (P = 90 parameters of a 12-dimensional Gaussian, n = n_a + n_b frames), which
//     governs short clusters, where a separate model wins a lot of likelihood simply by fitting the few phonemes in
//     it; and
//   • τ·n_a·n_b/n, a per-frame divergence threshold: G/(n_a·n_b/n) is about half the squared Mahalanobis distance
//     between the two means. It governs long clusters: the BIC penalty only grows with log n while the gain of
//     splitting one speaker's speech by content grows linearly, so pure BIC breaks long monologues apart.
// Pairs are merged in increasing order of G/T and merging stops when the best pair has G/T ≥ 1. Both constants were
// tuned on synthetic (espeak-ng) and read (LibriVox) speech so that one voice stays one speaker while clearly
// different voices (e.g. a low male and a high female voice) end up apart with a comfortable margin. `maxSpeakers`
// keeps merging past that point when the caller knows better.
//
// Memory stays linear in the number of segments: instead of an n×n distance matrix each cluster remembers its best
// partner and that score. After a merge the new cluster is compared with every other cluster once, and only clusters
// whose best partner was one of the merged pair and now scores worse are rescanned, which keeps the search exact.
import { CovarianceWorkspace, bicPenalty, likelihoodGain, type GaussianStats } from './gaussian.ts';

export interface ClusteringOptions {
  /** BIC penalty weight λ (default 2.6). */
  lambda?: number;
  /** Per-frame divergence threshold τ in nats (default 5.7; 0 = pure BIC). */
  divergence?: number;
  /** Upper bound on the number of clusters; merging continues past the threshold to reach it. */
  maxSpeakers?: number;
}

export const DEFAULT_CLUSTER_LAMBDA = 2.6;
export const DEFAULT_CLUSTER_DIVERGENCE = 5.7;

/** Merge threshold T(a, b) for clusters of na and nb frames in d dimensions. */
export function mergeThreshold(d: number, na: number, nb: number, lambda: number, divergence: number): number {
  return Math.max(bicPenalty(d, na + nb, lambda), (divergence * na * nb) / (na + nb));
}

/** Cluster label (0…k-1, in order of the first segment of each cluster) for every segment. */
export function clusterSegments(segments: readonly GaussianStats[], options: ClusteringOptions = {}): Int32Array {
  const lambda = options.lambda ?? DEFAULT_CLUSTER_LAMBDA;
  const divergence = options.divergence ?? DEFAULT_CLUSTER_DIVERGENCE;
  const maxSpeakers = Math.max(1, options.maxSpeakers ?? Infinity);
  const n = segments.length;
  const labels = new Int32Array(n);
  if (n === 0) return labels;
  const d = segments[0]!.d;
  const workspace = new CovarianceWorkspace(d);

  // Linear pass: consecutive segments of one speaker's turn are merged first, which usually leaves far fewer clusters
  // for the quadratic search below.
  const runOf = new Int32Array(n);
  const stats: GaussianStats[] = [segments[0]!.clone()];
  for (let s = 1; s < n; s++) {
    const run = stats[stats.length - 1]!;
    const next = segments[s]!;
    if (likelihoodGain(workspace, run, next) < mergeThreshold(d, run.n, next.n, lambda, divergence)) {
      run.addStats(next);
    } else stats.push(next.clone());
    runOf[s] = stats.length - 1;
  }

  const m = stats.length;
  const logDets = stats.map((s) => workspace.logDet(s));
  const parent = Int32Array.from({ length: m }, (_, i) => i);
  const active: number[] = Array.from({ length: m }, (_, i) => i);
  const best = new Int32Array(m).fill(-1);
  const bestScore = new Float64Array(m).fill(Infinity);
  /** G/T − 1: negative = same speaker. */
  const score = (i: number, j: number) => {
    const [a, b] = [stats[i]!, stats[j]!];
    const gain = likelihoodGain(workspace, a, b, logDets[i], logDets[j]);
    return gain / mergeThreshold(d, a.n, b.n, lambda, divergence) - 1;
  };
  const offer = (k: number, partner: number, s: number) => {
    if (s < bestScore[k]!) {
      bestScore[k] = s;
      best[k] = partner;
    }
  };
  const rescan = (i: number) => {
    best[i] = -1;
    bestScore[i] = Infinity;
    for (const j of active) if (j !== i) offer(i, j, score(i, j));
  };
  for (let i = 0; i < m; i++) {
    for (let j = i + 1; j < m; j++) {
      const s = score(i, j);
      offer(i, j, s);
      offer(j, i, s);
    }
  }

  while (active.length > 1) {
    let i = -1;
    for (const k of active) if (i < 0 || bestScore[k]! < bestScore[i]!) i = k;
    if (bestScore[i]! >= 0 && active.length <= maxSpeakers) break;
    const j = best[i]!;
    // Merge j into i.
    stats[i]!.addStats(stats[j]!);
    logDets[i] = workspace.logDet(stats[i]!);
    parent[j] = i;
    active.splice(active.indexOf(j), 1);
    best[i] = -1;
    bestScore[i] = Infinity;
    for (const k of active) {
      if (k === i) continue;
      const s = score(i, k);
      offer(i, k, s);
      if (best[k] === i || best[k] === j) {
        // The old best partner changed; every other score of k is unchanged and was no better than the old best.
        if (s <= bestScore[k]!) {
          bestScore[k] = s;
          best[k] = i;
        } else rescan(k);
      } else offer(k, i, s);
    }
  }

  const root = (i: number): number => {
    while (parent[i] !== i) i = parent[i]!;
    return i;
  };
  const numbering = new Map<number, number>();
  for (let s = 0; s < n; s++) {
    const r = root(runOf[s]!);
    if (!numbering.has(r)) numbering.set(r, numbering.size);
    labels[s] = numbering.get(r)!;
  }
  return labels;
}
