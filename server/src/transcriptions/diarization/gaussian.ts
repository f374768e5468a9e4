// Full-covariance Gaussian models kept as sufficient statistics (count, sum, packed sum of outer products), and the
// Bayesian Information Criterion that compares "one Gaussian for both stretches of audio" with "one Gaussian each".
//
// Sufficient statistics make every operation the algorithms need cheap and exact: a sliding window adds and removes
// frames, merging two clusters adds their statistics, and the log-determinant of the maximum-likelihood covariance —
// the only quantity BIC needs — comes from a Cholesky factorisation of a 12×12 matrix. Nothing keeps frames around.
//
// ΔBIC(A, B) = ½·[n·log|Σ| − n_A·log|Σ_A| − n_B·log|Σ_B|] − λ·½·(d + d(d+1)/2)·log n   (n = n_A + n_B)
// is the log-likelihood ratio of the two hypotheses minus a penalty for the extra model: positive means "two different
// sources", negative "same source". λ (nominally 1) tunes how much evidence a split needs.

/** Number of packed upper-triangle entries of a d×d symmetric matrix. */
export function packedSize(d: number): number {
  return (d * (d + 1)) / 2;
}

/** Count, sum and sum of outer products of d-dimensional frames. */
export class GaussianStats {
  n = 0;
  readonly sum: Float64Array;
  /** Upper triangle of Σ x·xᵀ, row by row. */
  readonly squares: Float64Array;

  constructor(readonly d: number) {
    this.sum = new Float64Array(d);
    this.squares = new Float64Array(packedSize(d));
  }

  /** Adds (sign = 1) or removes (sign = -1) the frame stored at `data[offset…offset+d)`. */
  update(data: Float32Array, offset: number, sign: 1 | -1): void {
    const d = this.d;
    this.n += sign;
    let p = 0;
    for (let i = 0; i < d; i++) {
      const xi = data[offset + i]! * sign;
      this.sum[i]! += xi;
      for (let j = i; j < d; j++) this.squares[p++]! += xi * data[offset + j]!;
    }
  }

  /** Adds frames [from, to) of a frame-major matrix with d columns. */
  addRange(data: Float32Array, from: number, to: number): void {
    for (let t = from; t < to; t++) this.update(data, t * this.d, 1);
  }

  addStats(other: GaussianStats): void {
    this.n += other.n;
    for (let i = 0; i < this.sum.length; i++) this.sum[i]! += other.sum[i]!;
    for (let i = 0; i < this.squares.length; i++) this.squares[i]! += other.squares[i]!;
  }

  clone(): GaussianStats {
    const copy = new GaussianStats(this.d);
    copy.addStats(this);
    return copy;
  }
}

/**
 * Scratch space for log-determinants; one per thread of computation avoids allocating in inner loops.
 * `ridge` is added to the diagonal of every covariance so that short segments (fewer frames than parameters, or
 * nearly constant coefficients) keep a finite log-determinant; features are variance-normalised, so it is relative
 * to unit variance.
 */
export class CovarianceWorkspace {
  private readonly matrix: Float64Array;
  private readonly mean: Float64Array;

  constructor(
    readonly d: number,
    readonly ridge = 1e-3,
  ) {
    this.matrix = new Float64Array(d * d);
    this.mean = new Float64Array(d);
  }

  /** log|Σ| of the maximum-likelihood covariance of a, or of a ∪ b when b is given. */
  logDet(a: GaussianStats, b?: GaussianStats): number {
    const d = this.d;
    const n = a.n + (b ? b.n : 0);
    if (n <= 0) return 0;
    const mean = this.mean;
    const m = this.matrix;
    const [sumA, squaresA] = [a.sum, a.squares];
    const [sumB, squaresB] = b ? [b.sum, b.squares] : [undefined, undefined];
    for (let i = 0; i < d; i++) mean[i] = (sumA[i]! + (sumB ? sumB[i]! : 0)) / n;
    let p = 0;
    for (let i = 0; i < d; i++) {
      const mi = mean[i]!;
      for (let j = i; j < d; j++) {
        const v = (squaresA[p]! + (squaresB ? squaresB[p]! : 0)) / n - mi * mean[j]!;
        m[i * d + j] = v;
        m[j * d + i] = v;
        p++;
      }
      m[i * d + i]! += this.ridge;
    }
    return choleskyLogDet(m, d);
  }
}

/** log-determinant of a symmetric positive-definite matrix by in-place Cholesky; tiny pivots are clamped. */
function choleskyLogDet(m: Float64Array, d: number): number {
  let product = 1;
  for (let j = 0; j < d; j++) {
    let diag = m[j * d + j]!;
    for (let k = 0; k < j; k++) diag -= m[j * d + k]! * m[j * d + k]!;
    diag = Math.max(diag, 1e-12);
    product *= diag;
    const l = Math.sqrt(diag);
    m[j * d + j] = l;
    for (let i = j + 1; i < d; i++) {
      let v = m[i * d + j]!;
      for (let k = 0; k < j; k++) v -= m[i * d + k]! * m[j * d + k]!;
      m[i * d + j] = v / l;
    }
  }
  return Math.log(product);
}

/** Number of free parameters of a full-covariance Gaussian in d dimensions. */
export function gaussianParameters(d: number): number {
  return d + packedSize(d);
}

/**
 * Generalised likelihood ratio: log-likelihood gained by modelling a and b with one Gaussian each instead of one for
 * both, ½·[n·log|Σ| − n_a·log|Σ_a| − n_b·log|Σ_b|] ≥ 0. `logDetA` / `logDetB` may be passed when already known.
 */
export function likelihoodGain(
  workspace: CovarianceWorkspace,
  a: GaussianStats,
  b: GaussianStats,
  logDetA = workspace.logDet(a),
  logDetB = workspace.logDet(b),
): number {
  return 0.5 * ((a.n + b.n) * workspace.logDet(a, b) - a.n * logDetA - b.n * logDetB);
}

/** BIC penalty λ·½·P·log n for the extra Gaussian of a split of n frames. */
export function bicPenalty(d: number, n: number, lambda: number): number {
  return lambda * 0.5 * gaussianParameters(d) * Math.log(n);
}

/** ΔBIC between modelling a and b separately and together (positive = different speakers). */
export function deltaBic(workspace: CovarianceWorkspace, a: GaussianStats, b: GaussianStats, lambda: number): number {
  return likelihoodGain(workspace, a, b) - bicPenalty(a.d, a.n + b.n, lambda);
}
