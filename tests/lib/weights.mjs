// How time-weighted readers (speedscope on Chrome traces, DevTools'
// Bottom-Up) weigh our samples, and how to compare their rankings with ours.
// Shared by readers.test.mjs and formats.test.mjs.
import assert from 'node:assert/strict';

export const isIdle = (name) => name === '(idle)' || name === '(root)';

/**
 * Self time per leaf function the way a time-weighted reader computes it
 * from our samples: each sample lasts until the next one of its thread (the
 * last one weighs 0), idle samples count for nobody. Descending.
 */
export function timeWeightedSelf(thread) {
  const self = new Map();
  const s = thread.samples;
  for (let i = 0; i + 1 < s.length; i++) {
    const leaf = s[i].stack.at(-1);
    if (!leaf || isIdle(leaf)) continue;
    self.set(leaf, (self.get(leaf) || 0) + (s[i + 1].ts - s[i].ts));
  }
  return [...self.entries()].filter(([, w]) => w > 0).sort((a, b) => b[1] - a[1]);
}

/**
 * How much time a reader that draws scope events beside the samples can
 * give to scopes instead of functions: DevTools gives the time between a
 * scope's start and the first sample inside it to the scope event. For each
 * scope, at most the gap between the samples around its start: one
 * interval on an idle machine, more where the sampler missed ticks.
 */
export function scopeStartSlack(thread) {
  const ts = thread.samples.map((s) => s.ts);
  let slack = 0;
  for (const scope of thread.scopes) {
    let i = 0;
    let hi = ts.length;
    while (i < hi) {
      const mid = (i + hi) >> 1;
      if (ts[mid] < scope.ts) i = mid + 1;
      else hi = mid;
    }
    if (i > 0 && i < ts.length) slack += ts[i] - ts[i - 1];
    else if (i < ts.length) slack += ts[i] - scope.ts;
  }
  return slack;
}

/**
 * The reader's top names must be ours, in order: ours' top n that stand out
 * of the reader's noise (value > tol), where functions whose values in
 * `ours` differ by at most `tol` may trade places. Both lists: [name, value]
 * descending, same unit.
 */
export function assertSameTop(reader, ours, n, tol, label) {
  const ov = new Map(ours);
  const o = ours.filter(([k, v]) => !isIdle(k) && v > tol).slice(0, n);
  const r = reader.filter(([k]) => !isIdle(k)).slice(0, o.length);
  const show = (l) => l.map(([k, v]) => `${k}=${Math.round(v)}`).join(', ');
  const msg = `${label}: reader top [${show(reader.slice(0, n))}] vs ours [${show(ours.slice(0, n))}] (tolerance ${Math.round(tol)})`;
  assert.ok(o.length > 0, `${msg}: no function stands out`);
  assert.equal(r.length, o.length, msg);
  r.forEach(([name], i) => {
    assert.ok(ov.has(name), `${msg}: ${name} is not one of our functions`);
    assert.ok(Math.abs(ov.get(name) - o[i][1]) <= tol, `${msg}: place ${i + 1}`);
  });
}
