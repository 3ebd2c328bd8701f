// Every pthread seen, and waiting shown as waiting (tests/waiting): main and
// three pthreads alternate between spinning and blocking on a condition
// variable; one of the pthreads is never instrumented and never calls
// wasmtrace. Linked with the wasmtrace target, hence with the
// pthread_create and emscripten_futex_wait wrappers:
//   - every app thread appears with samples, the uninstrumented one named
//     after its start routine and sampled in it (its base frame);
//   - per thread, the share of its samples marked waiting is within 5
//     points (plus the share of grid slots the sampler missed in its
//     window) of the share of time the thread itself measured in the wait
//     with the same clock: the truth, whatever the machine's load does to
//     the planned split;
//   - the built-in "live threads" counter reaches main + 3;
//   - the count of waiting samples is the same in the trace's stats, in
//     the samples themselves and in JS stats().samplesWaiting;
//   - firefox puts the "(waiting)" frame in the Idle category, folded ends
//     such stacks with a "(waiting)" frame, and both read back as waiting.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { wasmBuildDir } from '../lib/build-dir.mjs';
import { recordPage } from '../lib/record.mjs';
import { readProfile, realDepth } from '../../lib/profile.mjs';
import { decompress, parseTrace } from '../../lib/trace.mjs';

const dir = join(wasmBuildDir, 'tests/waiting');
const TOLERANCE_PP = 5;
// Which thread is which: a function on its stack while it runs its loop
// (main: the thread named so; its main() is __original_main on some
// Emscripten versions).
const ROLES = { main: null, 'pool-1': 'pool_worker_1', 'pool-2': 'pool_worker_2', quiet: 'quiet_main' };
const LOOP = { main: 'wait_loop', 'pool-1': 'wait_loop', 'pool-2': 'wait_loop', quiet: 'quiet_main' };
const WAITING = '(waiting)';
const isWaiting = (s) => s.stack.at(-1) === WAITING;
const frames = (s) => s.stack.slice(0, realDepth(s.stack));

async function record(format) {
  let truth;
  const rec = await recordPage({ dir, path: `index.html?format=${format}`, waitFor: 'self.waitingDone === true',
    beforeStop: async (page) => { truth = await page.evaluate(() => self.waitingTruth); } });
  const s = rec.sessions[0];
  assert.equal(s.state, 'stopped', `session: ${s.state} ${s.error ?? ''}`);
  return { session: s, truth, profile: readProfile(s.bytes) };
}

/** The sampled waiting share of each role's thread, in its loop's samples. */
function shares(profile, truth) {
  const out = {};
  for (const [role, fn] of Object.entries(ROLES)) {
    const runs = (s) => (!fn || s.stack.includes(fn)) && s.stack.includes(LOOP[role]);
    const threads = profile.threads.filter((t) => (fn || t.name === 'main') && t.samples.some(runs));
    assert.equal(threads.length, 1, `${role}: threads running ${fn ?? 'main'}: ${profile.threads.map((t) => t.name).join(', ')}`);
    const t = threads[0];
    const inLoop = t.samples.filter(runs);
    const n = inLoop.reduce((a, s) => a + s.weight, 0);
    const waiting = inLoop.filter(isWaiting).reduce((a, s) => a + s.weight, 0);
    const m = truth[role];
    out[role] = { thread: t, n, sampled: (100 * waiting) / n, measured: (100 * m.waitMs) / m.totalMs, inLoop };
  }
  return out;
}

test('every pthread appears with samples and its waiting share matches the time it measured in the wait', async () => {
  const { session, truth, profile } = await record('chrome');
  const byRole = shares(profile, truth);
  const report = [];
  for (const [role, r] of Object.entries(byRole)) {
    // Enough samples to judge a share at all (a stalled sampler would give a handful).
    assert.ok(r.n >= 100, `${role}: only ${r.n} samples in its 2.5 s loop`);
    const iv = profile.intervalUs;
    const ts = r.inLoop.map((s) => s.ts);
    const slots = Math.floor(ts.at(-1) / iv) - Math.floor(ts[0] / iv) + 1;
    // Slots without a sample: counted samples (r.n weighs each by the
    // periods it stands for, so it fills the missed slots back in).
    const missedPct = (100 * Math.max(0, slots - r.inLoop.length)) / slots;
    const tol = TOLERANCE_PP + missedPct;
    // Sanity: the thread did wait for a good share of its time.
    assert.ok(r.measured > 20 && r.measured < 90, `${role}: measured ${r.measured.toFixed(1)}% waiting`);
    report.push(`${role} '${r.thread.name}': waiting sampled ${r.sampled.toFixed(1)}%, measured ${r.measured.toFixed(1)}%, ` +
      `error ${(r.sampled - r.measured).toFixed(1)} pp (tolerance ${tol.toFixed(1)} pp: ${r.n} samples, ${missedPct.toFixed(1)}% of the slots missed)`);
    assert.ok(Math.abs(r.sampled - r.measured) <= tol, report.join('\n'));
  }
  // The thread that never calls wasmtrace is named after its start routine
  // and seen running in it (its base frame), waiting or not.
  const quiet = byRole.quiet.thread;
  assert.match(quiet.name, /^pthread \d+ \(quiet_main\)$/);
  assert.ok(quiet.samples.every((s) => realDepth(s.stack) === 0 || s.stack[0] === 'quiet_main'), 'quiet: base frame first');
  assert.ok(quiet.samples.some((s) => !isWaiting(s) && s.stack.length), 'quiet: no running sample');
  // An instrumented start routine is shown once, not as base frame and again.
  for (const role of ['pool-1', 'pool-2']) {
    const fn = ROLES[role];
    assert.match(byRole[role].thread.name, new RegExp(`^pthread \\d+ \\(${fn}\\)$`));
    for (const s of byRole[role].inLoop) assert.deepEqual(frames(s).slice(0, 2), [fn, 'wait_loop'], `${role}: ${s.stack.join(';')}`);
  }
  // Accounting: the trace's stats, its samples and the JS stats agree.
  // Counted, not weighed (threadTotals weighs samples by the periods they
  // stand for; the stats count samples).
  const waitingSamples = profile.threads.reduce((a, t) => a + t.samples.filter(isWaiting).length, 0);
  assert.equal(profile.stats.samplesDropped, 0);
  assert.equal(profile.stats.waiting, waitingSamples);
  assert.equal(session.stats.samplesWaiting, waitingSamples);
  // Live threads: main and the three pthreads (wasmtrace's worker is not an app thread).
  const live = parseTrace(session.bytes).filter((e) => e.ph === 'C' && e.name === 'live threads').map((e) => e.args.value);
  assert.ok(live.length > 10, `live threads: ${live.length} values`);
  assert.equal(Math.max(...live), 4, `live threads: ${[...new Set(live)].join(', ')}`);
  console.log(`${report.join('\n')}\nlive threads: max ${Math.max(...live)}; waiting samples ${waitingSamples} of ${profile.stats.samplesTaken}`);
});

test('firefox marks waiting samples with the Idle category and folded with a (waiting) frame; both read back as waiting', async () => {
  const ff = await record('firefox');
  const json = JSON.parse(decompress(ff.session.bytes).toString('utf8'));
  const strings = json.shared.stringArray;
  const idle = json.meta.categories.findIndex((c) => c.name === 'Idle');
  assert.ok(idle >= 0, 'an Idle category');
  let marked = 0;
  for (const th of json.threads) {
    for (let f = 0; f < th.frameTable.length; f++) {
      if (strings[th.funcTable.name[th.frameTable.func[f]]] !== '(waiting)') continue;
      assert.equal(th.frameTable.category[f], idle, `${th.name}: (waiting) frame category`);
      marked++;
    }
  }
  assert.ok(marked >= 4, `(waiting) frames: ${marked}`);
  const ffShares = shares(ff.profile, ff.truth);
  for (const r of Object.values(ffShares)) assert.ok(r.sampled > 0, `${r.thread.name}: no waiting sample`);

  const folded = await record('folded');
  const text = decompress(folded.session.bytes).toString('utf8');
  assert.match(text, /^pthread \d+ \(quiet_main\);quiet_main;\(waiting\) \d+$/m);
  assert.match(text, /^pthread \d+ \(pool_worker_1\);pool_worker_1;wait_loop;\(waiting\) \d+$/m);
  const foldedShares = shares(folded.profile, folded.truth);
  for (const r of Object.values(foldedShares)) assert.ok(r.sampled > 0 && r.sampled < 100, `${r.thread.name}: ${r.sampled}% waiting`);
});
