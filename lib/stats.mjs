// The statistics of `wasmtrace diff` (lib/diff.mjs), written here (a few
// formulas; tests/node/stats.test.mjs checks them against published tables
// and against simulated known distributions):
//
//   - Student's t distribution: its CDF through the regularized incomplete
//     beta function (a continued fraction, evaluated by the modified Lentz
//     method), its quantiles by bisection on the CDF;
//   - Welch's two-sample t test and interval for a difference of means
//     (unequal variances, Welch-Satterthwaite degrees of freedom);
//   - the Mann-Whitney U test (exact for small samples, normal
//     approximation with a tie correction beyond), reported beside Welch's
//     for what it cannot do: with 5 runs a side its smallest two-sided p is
//     2/252 = 0.0079, so across more than 6 functions no false-discovery
//     correction can ever flag one;
//   - Benjamini-Hochberg adjusted p-values (q-values);
//   - the standard error of a run's total from slices of its time (one run
//     a side).

// ---- a seeded generator --------------------------------------------------------

/** xorshift32: () => [0, 1), the same sequence for the same seed (tests, benchmarks' draws). */
export function seededRandom(seed) {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13; x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5; x >>>= 0;
    return x / 4294967296;
  };
}

// ---- special functions ---------------------------------------------------------

/** ln Γ(x) for x > 0: the recurrence up to x >= 15, then Stirling's series. */
export function logGamma(x) {
  if (!(x > 0)) return NaN;
  let shift = 0;
  while (x < 15) {
    shift += Math.log(x);
    x += 1;
  }
  const inv = 1 / x, inv2 = inv * inv;
  // Stirling: (x - 1/2) ln x - x + ln(2π)/2 + 1/(12x) - 1/(360x³) + 1/(1260x⁵) - 1/(1680x⁷)
  const series = inv * (1 / 12 - inv2 * (1 / 360 - inv2 * (1 / 1260 - inv2 / 1680)));
  return (x - 0.5) * Math.log(x) - x + 0.5 * Math.log(2 * Math.PI) + series - shift;
}

/** The continued fraction of I_x(a, b) (modified Lentz), for x < (a + 1) / (a + b + 2). */
function betaFraction(a, b, x) {
  const TINY = 1e-300, EPS = 1e-15;
  let c = 1;
  let d = 1 - ((a + b) * x) / (a + 1);
  if (Math.abs(d) < TINY) d = TINY;
  d = 1 / d;
  let f = d;
  for (let m = 1; m <= 1000; m++) {
    // The even step, then the odd step, of the fraction's terms.
    for (const num of [(m * (b - m) * x) / ((a + 2 * m - 1) * (a + 2 * m)), (-(a + m) * (a + b + m) * x) / ((a + 2 * m) * (a + 2 * m + 1))]) {
      d = 1 + num * d;
      if (Math.abs(d) < TINY) d = TINY;
      c = 1 + num / c;
      if (Math.abs(c) < TINY) c = TINY;
      d = 1 / d;
      f *= d * c;
      if (Math.abs(d * c - 1) < EPS) return f;
    }
  }
  return f;
}

/** The regularized incomplete beta function I_x(a, b). */
export function incompleteBeta(x, a, b) {
  if (!(x > 0)) return 0;
  if (!(x < 1)) return 1;
  const front = Math.exp(logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log1p(-x));
  // The fraction converges fast on this side; the symmetry I_x(a,b) = 1 - I_{1-x}(b,a) on the other.
  if (x < (a + 1) / (a + b + 2)) return (front * betaFraction(a, b, x)) / a;
  return 1 - (front * betaFraction(b, a, 1 - x)) / b;
}

/** P(T <= t) for Student's t with df degrees of freedom (df may be fractional; Infinity: the normal). */
export function tCdf(t, df) {
  if (Number.isNaN(t) || !(df > 0)) return NaN;
  if (t === Infinity) return 1;
  if (t === -Infinity) return 0;
  if (df === Infinity || df > 1e7) return normalCdf(t);
  const tail = 0.5 * incompleteBeta(df / (df + t * t), df / 2, 0.5);
  return t > 0 ? 1 - tail : tail;
}

/** The p-quantile of Student's t (bisection on tCdf; 0 < p < 1). */
export function tQuantile(p, df) {
  if (!(p > 0 && p < 1) || !(df > 0)) return NaN;
  if (p === 0.5) return 0;
  if (p < 0.5) return -tQuantile(1 - p, df);
  let lo = 0, hi = 1;
  while (tCdf(hi, df) < p) {
    hi *= 2;
    if (hi > 1e12) return Infinity;
  }
  for (let i = 0; i < 200 && hi - lo > 1e-12 * hi; i++) {
    const mid = (lo + hi) / 2;
    if (tCdf(mid, df) < p) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

/** Φ(z): the standard normal CDF (through the incomplete gamma function). */
export function normalCdf(z) {
  if (Number.isNaN(z)) return NaN;
  // Φ(z) = P(χ²₁ <= z²)/2 + 1/2 for z >= 0, and P(χ²₁ <= z²) = γ(1/2, z²/2)/Γ(1/2).
  const p = 0.5 * lowerGammaRegularized(0.5, (z * z) / 2);
  return z >= 0 ? 0.5 + p : 0.5 - p;
}

/** P(a, x), the regularized lower incomplete gamma function (series below a + 1, continued fraction above). */
export function lowerGammaRegularized(a, x) {
  if (!(x > 0)) return 0;
  if (x === Infinity) return 1;
  const lg = logGamma(a);
  if (x < a + 1) {
    let term = 1 / a, sum = term;
    for (let n = 1; n < 1000; n++) {
      term *= x / (a + n);
      sum += term;
      if (Math.abs(term) < Math.abs(sum) * 1e-16) break;
    }
    return sum * Math.exp(-x + a * Math.log(x) - lg);
  }
  // Q(a, x) by its continued fraction (modified Lentz), P = 1 - Q.
  const TINY = 1e-300;
  let b = x + 1 - a, c = 1 / TINY, d = 1 / b, h = d;
  for (let i = 1; i < 1000; i++) {
    const an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (Math.abs(d) < TINY) d = TINY;
    c = b + an / c;
    if (Math.abs(c) < TINY) c = TINY;
    d = 1 / d;
    const del = d * c;
    h *= del;
    if (Math.abs(del - 1) < 1e-16) break;
  }
  return 1 - Math.exp(-x + a * Math.log(x) - lg) * h;
}

// ---- descriptive -------------------------------------------------------------------

export const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;

/** The sample variance (n - 1), 0 for fewer than 2 values. */
export function variance(xs) {
  if (xs.length < 2) return 0;
  const m = mean(xs);
  return xs.reduce((a, x) => a + (x - m) * (x - m), 0) / (xs.length - 1);
}

// ---- Welch's t ----------------------------------------------------------------------

/**
 * Welch's test of mean(b) - mean(a) against 0, with its confidence interval.
 * Each side needs 2 or more values; minVariance: the least variance each
 * side's values may be taken to have (a known noise floor). A difference
 * with no variance on either side is exact: p = 0 if it is not 0, else 1.
 * @returns {{ diff: number, lo: number, hi: number, p: number, df: number, se: number }}
 */
export function welch(a, b, level = 0.95, { minVariance = [0, 0] } = {}) {
  const diff = mean(b) - mean(a);
  const va = Math.max(variance(a), minVariance[0]) / a.length, vb = Math.max(variance(b), minVariance[1]) / b.length;
  const se = Math.sqrt(va + vb);
  if (!(se > 0)) return { diff, lo: diff, hi: diff, p: diff === 0 ? 1 : 0, df: Infinity, se: 0 };
  const df = (va + vb) ** 2 / ((va * va) / (a.length - 1) + (vb * vb) / (b.length - 1));
  const t = diff / se;
  const p = Math.min(1, 2 * tCdf(-Math.abs(t), df));
  const q = tQuantile(1 - (1 - level) / 2, df);
  return { diff, lo: diff - q * se, hi: diff + q * se, p, df, se };
}

/**
 * A test from standard errors alone (normal): what N = 1 per side uses,
 * each side's se from a block bootstrap within its run.
 */
export function zTest(diff, se, level = 0.95) {
  if (!(se > 0)) return { diff, lo: diff, hi: diff, p: diff === 0 ? 1 : 0, df: Infinity, se: 0 };
  const z = tQuantile(1 - (1 - level) / 2, Infinity);
  return { diff, lo: diff - z * se, hi: diff + z * se, p: Math.min(1, 2 * normalCdf(-Math.abs(diff / se))), df: Infinity, se };
}

/**
 * The paired t test of b against a (b[i] recorded beside a[i], e.g. in
 * turns): the difference of means with its interval and two-sided p, from
 * the per-pair differences (n - 1 degrees of freedom). Drift that moves a
 * pair's two runs together cancels. minVariance: the least variance of one
 * pair's difference (sampling noise), as welch's.
 */
export function pairedT(a, b, level = 0.95, { minVariance = 0 } = {}) {
  if (a.length !== b.length) throw new RangeError(`pairedT: ${a.length} and ${b.length} values: pairs need as many on each side`);
  const d = b.map((x, i) => x - a[i]);
  const diff = mean(d);
  const se = Math.sqrt(Math.max(variance(d), minVariance) / d.length);
  const df = d.length - 1;
  if (!(se > 0) || df < 1) return { diff, lo: diff, hi: diff, p: diff === 0 ? 1 : 0, df, se: 0 };
  const p = Math.min(1, 2 * tCdf(-Math.abs(diff / se), df));
  const q = tQuantile(1 - (1 - level) / 2, df);
  return { diff, lo: diff - q * se, hi: diff + q * se, p, df, se };
}

// ---- Mann-Whitney U -------------------------------------------------------------

// The exact null distribution of U for sample sizes (n, m), cumulated:
// cum[k] = arrangements with U <= k (cum[n*m]: all of them). Computed once
// per (n, m) and kept: diff tests hundreds of rows with the same sizes.
const exactCache = new Map();
function exactUCumulative(n, m) {
  const key = `${n},${m}`;
  let cum = exactCache.get(key);
  if (cum) return cum;
  // counts(nn, mm)[k] = arrangements of nn a's and mm b's with U = k, by the
  // recurrence over the largest value: c(nn, mm, k) = c(nn-1, mm, k-mm) + c(nn, mm-1, k).
  const table = new Map();
  const counts = (nn, mm) => {
    if (nn === 0 || mm === 0) return [1];
    const tk = `${nn},${mm}`;
    let c = table.get(tk);
    if (c) return c;
    const x = counts(nn - 1, mm), y = counts(nn, mm - 1);
    c = new Array(nn * mm + 1).fill(0);
    for (let k = 0; k < x.length; k++) c[k + mm] += x[k];
    for (let k = 0; k < y.length; k++) c[k] += y[k];
    table.set(tk, c);
    return c;
  };
  const dist = counts(n, m);
  cum = new Array(dist.length);
  let acc = 0;
  for (let k = 0; k < dist.length; k++) cum[k] = acc += dist[k];
  exactCache.set(key, cum);
  return cum;
}

/**
 * The two-sided Mann-Whitney U test of a against b: exact (the permutation
 * distribution of U, by counting) when there are no ties and
 * n·m <= 400, else the normal approximation with a tie correction and a
 * continuity correction.
 * @returns {{ u: number, p: number, exact: boolean }}
 */
export function mannWhitney(a, b) {
  const n = a.length, m = b.length;
  const all = [...a.map((v) => ({ v, s: 0 })), ...b.map((v) => ({ v, s: 1 }))].sort((x, y) => x.v - y.v);
  // Mid-ranks for ties.
  const ranks = new Array(all.length);
  let ties = 0;
  for (let i = 0; i < all.length;) {
    let j = i;
    while (j + 1 < all.length && all[j + 1].v === all[i].v) j++;
    const r = (i + j) / 2 + 1;
    for (let k = i; k <= j; k++) ranks[k] = r;
    const t = j - i + 1;
    if (t > 1) ties += t * t * t - t;
    i = j + 1;
  }
  let ra = 0;
  for (let k = 0; k < all.length; k++) if (all[k].s === 0) ra += ranks[k];
  const u = ra - (n * (n + 1)) / 2; // U of a: pairs where a > b (ties half)
  const mu = (n * m) / 2;
  if (!ties && n * m <= 400) {
    const cum = exactUCumulative(n, m);
    const lo = Math.min(u, n * m - u);
    return { u, p: Math.min(1, (2 * cum[lo]) / cum[n * m]), exact: true };
  }
  const N = n + m;
  const sd = Math.sqrt(((n * m) / 12) * (N + 1 - ties / (N * (N - 1))));
  if (!(sd > 0)) return { u, p: 1, exact: false };
  const z = (Math.abs(u - mu) - 0.5) / sd;
  return { u, p: Math.min(1, 2 * normalCdf(-Math.max(0, z))), exact: false };
}

// ---- many tests at once ---------------------------------------------------------

/**
 * Benjamini-Hochberg adjusted p-values (q-values), in the order given: a
 * test is a discovery at false discovery rate q when its value is <= q.
 */
export function benjaminiHochberg(ps) {
  const m = ps.length;
  const order = ps.map((p, i) => [p, i]).sort((x, y) => x[0] - y[0]);
  const out = new Array(m);
  let min = 1;
  for (let r = m - 1; r >= 0; r--) {
    const [p, i] = order[r];
    min = Math.min(min, (p * m) / (r + 1));
    out[i] = min;
  }
  return out;
}

// ---- one run: blocks of time -------------------------------------------------------

/**
 * The standard error of a run's total from the totals of its B slices of
 * time (blocks): sqrt(B x their sample variance), what a bootstrap over
 * the blocks converges to. Blocks long enough to hold a function's bursts
 * keep their correlation in the estimate.
 */
export function blockSe(blockSums) {
  return Math.sqrt(blockSums.length * variance(blockSums));
}
