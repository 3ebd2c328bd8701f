// lib/stats.mjs against published values and against distributions
// simulated with a seeded generator (the same numbers on every run).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { benjaminiHochberg, blockSe, logGamma, mannWhitney, normalCdf, seededRandom, tCdf, tQuantile, welch, zTest, pairedT } from '../../lib/stats.mjs';

const rng = seededRandom;
// Standard normal draws (Box-Muller).
function normals(random) {
  return () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
}
const near = (x, want, tol, what) => assert.ok(Math.abs(x - want) <= tol, `${what}: ${x}, want ${want} ± ${tol}`);

describe('special functions, against tables', () => {
  test('ln Γ', () => {
    near(logGamma(0.5), Math.log(Math.sqrt(Math.PI)), 1e-12, 'lnΓ(1/2)');
    near(logGamma(1), 0, 1e-12, 'lnΓ(1)');
    near(logGamma(10), Math.log(362880), 1e-11, 'lnΓ(10)');
    near(logGamma(5.5), Math.log(52.34277778455352), 1e-12, 'lnΓ(5.5) = ln(945 √π / 32)');
  });
  test("Student's t quantiles (the 97.5 % column of every t table)", () => {
    for (const [df, want] of [[1, 12.7062], [2, 4.3027], [4, 2.7764], [8, 2.3060], [30, 2.0423], [120, 1.9799], [Infinity, 1.95996]]) {
      near(tQuantile(0.975, df), want, 1e-4, `t(0.975, ${df})`);
    }
    near(tQuantile(0.95, 10), 1.8125, 1e-4, 't(0.95, 10)');
    near(tQuantile(0.025, 4), -2.7764, 1e-4, 't(0.025, 4)');
  });
  test('the t and normal CDFs', () => {
    near(tCdf(2, 5), 0.94903, 1e-5, 'P(T5 <= 2)');
    near(tCdf(-1, 1), 0.25, 1e-12, 'P(T1 <= -1): Cauchy');
    near(tCdf(0, 3.5), 0.5, 1e-12, 'P(T <= 0)');
    near(normalCdf(1.96), 0.9750021, 1e-7, 'Φ(1.96)');
    near(normalCdf(-1), 0.1586553, 1e-7, 'Φ(-1)');
    near(normalCdf(-6), 9.8659e-10, 1e-13, 'Φ(-6)');
  });
});

describe("Welch's test", () => {
  test('the standard error and the Welch-Satterthwaite degrees of freedom, by hand', () => {
    // a: mean 2, variance 1 (n 3); b: mean 5, variance 20/3 (n 4).
    const w = welch([1, 2, 3], [2, 4, 6, 8]);
    near(w.diff, 3, 1e-12, 'diff');
    near(w.se, Math.sqrt(1 / 3 + 20 / 12), 1e-12, 'se');
    near(w.df, 4 / ((1 / 9) / 2 + (25 / 9) / 3), 1e-9, 'df');
    near(w.p, 2 * tCdf(-3 / w.se, w.df), 1e-12, 'p');
  });
  test('under no difference (unequal variances, 5 a side): 5 % false alarms, 95 % coverage', () => {
    const z = normals(rng(11));
    let alarms = 0, covered = 0;
    const trials = 20000;
    for (let i = 0; i < trials; i++) {
      const a = Array.from({ length: 5 }, () => 10 + z());
      const b = Array.from({ length: 5 }, () => 10 + 3 * z());
      const w = welch(a, b);
      if (w.p <= 0.05) alarms++;
      if (w.lo <= 0 && 0 <= w.hi) covered++;
    }
    near(alarms / trials, 0.05, 0.008, 'false alarm rate');
    near(covered / trials, 0.95, 0.008, 'coverage');
  });
  test('a real difference of 2 standard deviations at 5 a side is found most of the time', () => {
    const z = normals(rng(5));
    let found = 0;
    for (let i = 0; i < 2000; i++) {
      const w = welch(Array.from({ length: 5 }, () => z()), Array.from({ length: 5 }, () => 2 + z()));
      if (w.p <= 0.05 && w.diff > 0) found++;
    }
    // The power of the test at d = 2, n = 5: about 0.79 (Student's t; Welch's a little less).
    near(found / 2000, 0.77, 0.05, 'power');
  });
  test('no variance on either side: exact', () => {
    assert.equal(welch([1, 1], [1, 1]).p, 1);
    assert.equal(welch([1, 1], [2, 2]).p, 0);
  });
  test('a z test from standard errors', () => {
    const r = zTest(1.959964, 1);
    near(r.p, 0.05, 1e-6, 'p');
    near(r.lo, 0, 1e-4, 'lo');
  });
});

describe('Mann-Whitney U', () => {
  test('exact: fully separated samples give the smallest p there is', () => {
    near(mannWhitney([1, 2, 3, 4, 5], [6, 7, 8, 9, 10]).p, 2 / 252, 1e-12, '5 vs 5');
    near(mannWhitney([1, 2, 3], [4, 5, 6]).p, 2 / 20, 1e-12, '3 vs 3');
    assert.equal(mannWhitney([6, 7, 8, 9, 10], [1, 2, 3, 4, 5]).u, 25);
  });
  test('exact against a table: n = m = 5, U = 2 has a two-sided p of 0.0317', () => {
    // U = 2: a > b in 2 of the 25 pairs.
    near(mannWhitney([1, 2, 3, 4.5, 4.6], [4, 5, 6, 7, 8]).p, 0.0317, 1e-4, 'p');
  });
  test('with ties: the normal approximation, p uniform-ish under the null', () => {
    const r = rng(3);
    let alarms = 0;
    for (let i = 0; i < 4000; i++) {
      const a = Array.from({ length: 20 }, () => Math.floor(r() * 10));
      const b = Array.from({ length: 20 }, () => Math.floor(r() * 10));
      const t = mannWhitney(a, b);
      assert.equal(t.exact, false);
      if (t.p <= 0.05) alarms++;
    }
    near(alarms / 4000, 0.05, 0.015, 'false alarm rate');
  });
});

describe('Benjamini-Hochberg', () => {
  test('adjusted p-values of a worked example, in the order given', () => {
    const q = benjaminiHochberg([0.01, 0.04, 0.03, 0.005]);
    assert.deepEqual(q.map((x) => Number(x.toFixed(10))), [0.02, 0.04, 0.04, 0.02]);
  });
  test('under the null everywhere, at q = 0.05 a family of 200 has a discovery in about 5 % of trials', () => {
    const r = rng(9);
    let any = 0;
    for (let i = 0; i < 4000; i++) {
      const q = benjaminiHochberg(Array.from({ length: 200 }, () => r()));
      if (q.some((x) => x <= 0.05)) any++;
    }
    near(any / 4000, 0.05, 0.012, 'family-wise discoveries');
  });
});

describe("a run's standard error from slices of its time", () => {
  const slices = (values, b) => Array.from({ length: b }, (_, k) => values.slice((k * values.length) / b, ((k + 1) * values.length) / b).reduce((a, x) => a + x, 0));
  test('for independent ticks: the binomial standard error (within the error of 20 slices)', () => {
    // The estimate from 20 slices has a relative error of ~1/sqrt(2 x 19) = 16 %: over 200 runs it averages out.
    const r = rng(21);
    let sum = 0;
    for (let k = 0; k < 200; k++) sum += blockSe(slices(Array.from({ length: 10000 }, () => (r() < 0.3 ? 1 : 0)), 20));
    near(sum / 200, Math.sqrt(10000 * 0.3 * 0.7), 0.05 * 45.8, 'se');
  });
  test('for a function that runs in bursts: the larger error', () => {
    // Bursts of 100 ticks in or out: the total varies ~10x more than independent ticks would.
    const r = rng(8);
    const values = [];
    for (let b = 0; b < 100; b++) {
      const v = r() < 0.3 ? 1 : 0;
      for (let k = 0; k < 100; k++) values.push(v);
    }
    const se = blockSe(slices(values, 20));
    assert.ok(se > 3 * Math.sqrt(10000 * 0.3 * 0.7), `se ${se}`);
  });
});

test('pairedT: a worked example against the printed t table (df 4)', () => {
  // d = [1, 1, 2, 1, 2]: mean 1.4, s^2 = 0.3, se = sqrt(0.06) = 0.2449; t = 5.715.
  const r = pairedT([1, 2, 3, 4, 5], [2, 3, 5, 5, 7]);
  assert.ok(Math.abs(r.diff - 1.4) < 1e-12);
  assert.ok(Math.abs(r.se - Math.sqrt(0.06)) < 1e-12);
  assert.equal(r.df, 4);
  // t(0.975, 4) = 2.776 (the table): the interval is 1.4 +- 0.680.
  assert.ok(Math.abs(r.lo - (1.4 - 2.776 * Math.sqrt(0.06))) < 1e-3, r.lo);
  assert.ok(Math.abs(r.hi - (1.4 + 2.776 * Math.sqrt(0.06))) < 1e-3, r.hi);
  // t(0.995, 4) = 4.604 < 5.715 < t(0.9995, 4) = 8.610: 0.001 < p < 0.01.
  assert.ok(r.p > 0.001 && r.p < 0.01, r.p);
  // A shift shared by both sides of every pair changes nothing.
  const shifted = pairedT([11, 2, 33, 4, 55], [12, 3, 35, 5, 57]);
  assert.ok(Math.abs(shifted.p - r.p) < 1e-12);
  assert.throws(() => pairedT([1, 2], [1]), /pairs need as many/);
});
