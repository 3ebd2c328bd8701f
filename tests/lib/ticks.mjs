// Invariants of the sampler's tick grid that no machine load can break,
// checked on a chrome-format trace read by lib/trace.mjs (analyzeTrace).
//
// The sampler keeps a metronome on a grid of slots at multiples of the
// interval (time base: the page's clock). At each tick it copies every
// registered thread's stack once and stamps all of them with one timestamp;
// slots whose deadline passed while it could not run are counted in the
// stats record's ticksMissed. So, whatever the load:
//  - a thread is sampled at every tick between its first and last sample
//    (same timestamp as every other thread), except where its copy was torn;
//  - every slot from the session's first to its last tick is either a tick
//    or a missed slot.
import assert from 'node:assert/strict';

/** The session's tick timestamps (every thread's samples together), ascending. */
export function tickTimes(analysis) {
  const ticks = new Set();
  for (const t of analysis.threads) for (const s of t.samples) ticks.add(s.ts);
  return [...ticks].sort((a, b) => a - b);
}

/**
 * Asserts that every thread was sampled at every tick between its first and
 * last sample, at the very timestamp of the other threads, up to the torn
 * copies the stats record counts. Returns the number of ticks.
 */
export function assertThreadsShareTicks(analysis, label = '') {
  const ticks = tickTimes(analysis);
  const torn = analysis.stats?.dropped?.tornStack ?? 0;
  let missing = 0;
  const where = [];
  for (const t of analysis.threads) {
    if (!t.samples.length) continue;
    const own = new Set(t.samples.map((s) => s.ts));
    const first = t.samples[0].ts;
    const last = t.samples.at(-1).ts;
    let lacks = 0;
    for (const ts of ticks) if (ts >= first && ts <= last && !own.has(ts)) lacks++;
    if (lacks) where.push(`${t.name} lacks ${lacks}`);
    missing += lacks;
  }
  assert.ok(missing <= torn, `${label}: ${missing} thread-ticks without a sample (${where.join(', ')}), ` +
    `but only ${torn} torn copies counted`);
  return ticks.length;
}

/**
 * The grid accounting of a session. The sampler stamps a tick with its
 * time T (whole us) and takes grid point floor(T / interval); grid points it
 * skipped since the previous tick are counted in ticksMissed; the stop is
 * handled after the tick of its iteration. So, whatever the load:
 *   ticks + missed = grid points from the first tick's to the last tick's,
 * exactly, where ticks are the distinct sample timestamps. A tick at which
 * every thread's copy was torn leaves no timestamp, so the grid may have up
 * to `tornStack` points more than ticks + missed, never fewer.
 */
export function gridAccounting(analysis, intervalUs = analysis.session.intervalUs) {
  const ticks = tickTimes(analysis);
  assert.ok(ticks.length > 0, 'no ticks');
  const slot = (us) => Math.floor(us / intervalUs);
  const r = { ticks: ticks.length, missed: analysis.stats.ticksMissed, slots: slot(ticks.at(-1)) - slot(ticks[0]) + 1 };
  r.accounted = r.ticks + r.missed;
  r.text = `${r.ticks} ticks + ${r.missed} missed = ${r.accounted} grid points; the grid has ${r.slots} from the ` +
    `first to the last tick (interval ${intervalUs} us)`;
  return r;
}

/** Asserts the grid accounting above; returns it. */
export function assertGridAccounting(analysis, label = '', intervalUs) {
  const g = gridAccounting(analysis, intervalUs);
  const torn = analysis.stats?.dropped?.tornStack ?? 0;
  assert.ok(g.accounted <= g.slots && g.slots - g.accounted <= torn, `${label}: ${g.text} (${torn} torn copies)`);
  return g;
}
/**
 * Samples of `thread` inside its scope `scopeName` (one occurrence, e.g.
 * WT_SCOPE around a phase) against the ticks: between its first and last
 * sample inside the scope, the thread is inside it at every tick (up to torn
 * copies, and partial samples whose known prefix ends above the scope). The scope's own window (its X event) is returned, not compared:
 * the scope's times come from its thread's clock and the ticks' from the
 * sampler's, which Emscripten 3.1.6 aligns only to a few ms across threads.
 * Works on an analyzeTrace() result and on a readProfile() profile. Returns
 * { samples, ticks, inWindow }.
 */
export function assertScopeSampledAtEveryTick(trace, thread, scopeName) {
  const scope = thread.scopes.find((s) => s.name === scopeName);
  assert.ok(scope, `${thread.name}: no ${scopeName} scope event`);
  const inside = thread.samples.filter((s) => s.stack.includes(scopeName)).map((s) => s.ts);
  assert.ok(inside.length > 0, `${thread.name}: no sample inside ${scopeName}`);
  const ticks = tickTimes(trace);
  const between = ticks.filter((ts) => ts >= inside[0] && ts <= inside.at(-1)).length;
  const inWindow = ticks.filter((ts) => ts >= scope.ts && ts <= scope.ts + scope.dur).length;
  const torn = trace.stats?.dropped?.tornStack ?? 0;
  // A partial sample (the stack moved during every copy) knows only a
  // prefix: it may end above the scope the thread was in.
  const cut = thread.samples.filter((s) => s.ts >= inside[0] && s.ts <= inside.at(-1) &&
    s.stack.at(-1) === '(partial stack)' && !s.stack.includes(scopeName)).length;
  const what = `${thread.name}: ${inside.length} samples inside ${scopeName}, ${between} ticks from its first to its last, ` +
    `${inWindow} ticks in its window, ${torn} torn copies, ${cut} partial samples cut above it`;
  assert.ok(inside.length <= between && inside.length + torn + cut >= between, what);
  return { samples: inside.length, ticks: between, inWindow };
}
