// The heap view of a trace (`wasmtrace report --heap`): a session that
// sampled the heap (config "heap", firefox format) holds every sampled
// allocation with its stack and estimated bytes, and its free, as the
// Firefox Profiler's nativeAllocations. From them: by allocation site (the
// innermost named frame of the allocation's stack), what was live at the
// heap's peak, what was live when the session stopped, and what was
// allocated in all, each an estimate with its 95 % interval.
//
// The estimate: the shim samples an allocation of n bytes with probability
// p = 1 - e^(-n/I) (I: the mean sampling interval) and weighs it n / p
// (native/src/heap.h), so a site's sum of weights is unbiased. Its variance
// (Horvitz-Thompson) is the sum of n^2 (1 - p) / p^2 = w^2 (1 - p) over its
// sampled allocations; the interval is +-1.96 standard deviations. n is
// found from w (w = n / (1 - e^(-n/I)) grows with n).
import { HeapBudget, TraceError, printable } from './trace.mjs';

/** The bytes n that a sampled allocation of weight w stands for at interval I. */
export function sizeOfWeight(w, interval) {
  // Interval 1 samples every allocation at its own size (native/src/heap.c).
  if (!(interval > 1) || !(w > 0)) return w;
  const weightOf = (n) => n / -Math.expm1(-n / interval);
  if (w <= interval) return Math.min(w, 1); // below I: a 1-byte allocation weighs ~I
  let lo = 0, hi = w;
  for (let k = 0; k < 60; k++) {
    const mid = (lo + hi) / 2;
    if (weightOf(mid) < w) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

/** Variance of one sampled allocation's weight as an estimate of its bytes. */
export function weightVariance(w, interval) {
  if (!(interval > 1)) return 0;
  const n = sizeOfWeight(w, interval);
  const p = -Math.expm1(-n / interval);
  return w * w * (1 - p);
}

/** Why a heap session of an app without the shim recorded nothing (native/src/api.c says it on the console). */
export const HEAP_UNLINKED = 'the app was not linked with the allocator shim wasmtrace_heap (CMake: wasmtrace_heap(app) ' +
  'and wasmtrace_formats(app); plain emcc: the flags of wasmtrace flags --ldflags --heap --formats; ' +
  'docs/GUIDE.md, "Where the memory went")';

/**
 * The record summary's line for a session that sampled the heap (its stats
 * record "heap"), or null for one that did not.
 */
export function heapNote(profile) {
  const h = profile?.stats?.heap;
  if (!h || typeof h !== 'object') return null;
  if (h.linked === false) return `heap: nothing recorded: ${HEAP_UNLINKED}`;
  if (typeof h.unavailable === 'string') return `heap: nothing recorded: ${h.unavailable}`;
  const n = (v) => (Number.isFinite(v) ? v : 0);
  const d = h.dropped && typeof h.dropped === 'object' ? h.dropped : {};
  const dropped = n(d.queueFull) + n(d.setFull) + n(d.freesLost);
  return `heap: ${n(h.allocations)} sampled allocations (every ${formatBytes(n(h.sampleBytes))} on average), ` +
    `~${formatBytes(n(h.peakBytes))} live at the peak, ~${formatBytes(n(h.liveBytes))} at stop` +
    (dropped ? `, ${dropped} dropped` : '') +
    (profile.format === 'firefox' ? ' (by site: wasmtrace report --heap)' : ` (by site only in the firefox format; this trace is ${profile.format})`);
}

const isPseudo = (name) => name.startsWith('(') && name.endsWith(')');

/**
 * An allocation wrapper: a function that allocates for its caller, so that
 * every allocation made through it would have it as its site (Lua's
 * l_alloc, sqlite3Malloc, xmalloc, C++'s operator new, an arena's
 * pool_alloc). The rule: the name (without a C++ parameter list, leading
 * or trailing underscores and digits, any case) is `operator new` /
 * `operator new[]` or ends in "alloc" (malloc, calloc, realloc, l_alloc,
 * luaM_malloc_, g_malloc0 ...); `extra` names more, exactly.
 */
export function isAllocationWrapper(name, extra = null) {
  if (typeof name !== 'string') return false;
  if (extra && extra.has(name)) return true;
  const bare = name.replace(/\(.*$/s, '').replace(/^_+|[_\d]+$/g, '').trim().toLowerCase();
  return bare === 'operator new' || bare === 'operator new[]' || /alloc$/.test(bare);
}

/**
 * The allocation site of a stack: its innermost named frame that is not an
 * allocation wrapper (isAllocationWrapper), or, when every named frame is
 * one, the innermost named frame. The full stack stays in the blocks (and
 * in pprof and the folded output).
 */
export function siteOf(stack, extra = null) {
  let innermost = null;
  for (let i = stack.length - 1; i >= 0; i--) {
    if (isPseudo(stack[i])) continue;
    innermost ??= stack[i];
    if (!isAllocationWrapper(stack[i], extra)) return stack[i];
  }
  return innermost ?? '(no stack)';
}

/**
 * The heap view of a profile read by readProfile.
 * @returns {{ interval: number|null, threads: number, allocations: number, frees: number,
 *   peak: { bytes: number, ts: number }, live: number, allocated: number,
 *   sites: Array<{ site: string, thread: string, peak: number, peakVar: number,
 *     live: number, liveVar: number, allocated: number, allocatedVar: number, count: number }>,
 *   blocks: { peak: HeapBlock[], live: HeapBlock[] }, stats: object|null }}
 *   (HeapBlock: { thread: string, stack: string[], bytes: number }, a sampled block live at the
 *   peak or at stop, bytes its estimate)
 */
const HEAP_VIEW_BYTES_PER_EVENT = 450;
export function heapView(profile, { wrappers = [] } = {}) {
  const extra = new Set(wrappers);
  const skipped = new Set(); // the wrappers a site went past
  const heapStats = profile.stats?.heap ?? profile.session?.heap ?? null;
  const interval = Number.isFinite(heapStats?.sampleBytes) ? heapStats.sampleBytes : null;
  // The replay's copies (an event per allocation and free, and the live
  // sets at the end and at the peak) take ~430 bytes of JS heap per event
  // beyond what the reader charged for the allocations themselves
  // (measured on Node 20: 1.33 M events, 570 MiB at the replay's peak):
  // charged first, so that a trace too large for this process is refused
  // with one line, not an out-of-memory abort (10^7 allocations: 4.6 GB).
  let total = 0;
  for (const t of profile.threads) total += (t.allocations ?? []).length;
  new HeapBudget().charge(total * HEAP_VIEW_BYTES_PER_EVENT, `the heap view of its ${total} allocations and frees`);
  const events = [];
  for (const t of profile.threads) {
    for (const a of t.allocations ?? []) events.push({ ...a, thread: t.name });
  }
  if (!events.length) {
    throw new TraceError(heapStats
      ? `the session sampled the heap but recorded no allocation${heapStats.linked === false ? ` (${HEAP_UNLINKED})` : ''}${profile.format !== 'firefox' ? ` (only the firefox format holds allocations; this trace is ${profile.format})` : ''}`
      : `no heap samples in this trace: record with a session config "heap": {} and "format": "firefox" (docs/GUIDE.md, "Where the memory went")`);
  }
  // Replay in time order (stable: a thread's own order for equal times).
  events.sort((x, y) => x.ts - y.ts);
  const sites = new Map();
  const siteOfStack = new Map(); // a stack array (shared by equal stacks) -> its site
  const siteFor = (e) => {
    let site = siteOfStack.get(e.stack);
    if (site === undefined) {
      site = siteOf(e.stack, extra);
      for (let i = e.stack.length - 1; i >= 0 && e.stack[i] !== site; i--) if (!isPseudo(e.stack[i])) skipped.add(e.stack[i]);
      siteOfStack.set(e.stack, site);
    }
    const key = `${e.thread}\u0000${site}`;
    let s = sites.get(key);
    if (!s) sites.set(key, (s = { site, thread: e.thread, peak: 0, peakVar: 0, live: 0, liveVar: 0, allocated: 0, allocatedVar: 0, count: 0 }));
    return s;
  };
  // Two passes: the first finds the peak (the allocation after which the
  // most was live), the second replays up to it for the set live then.
  const replay = (upTo, onAlloc) => {
    const live = new Map(); // address -> { site, bytes }
    let liveBytes = 0, peakAt = -1, peakBytes = 0, n = 0;
    for (let i = 0; i < events.length && i <= upTo; i++) {
      const e = events[i];
      if (e.bytes > 0) {
        const s = siteFor(e);
        if (onAlloc) onAlloc(s, e);
        const key = e.address ?? `#${i}`;
        const old = live.get(key);
        if (old) liveBytes -= old.bytes; // freed where the shim could not see it
        live.set(key, { site: s, bytes: e.bytes, thread: e.thread, stack: e.stack });
        liveBytes += e.bytes;
        if (liveBytes > peakBytes) {
          peakBytes = liveBytes;
          peakAt = i;
        }
      } else {
        n++;
        const old = e.address !== null ? live.get(e.address) : undefined;
        if (old) {
          live.delete(e.address);
          liveBytes -= old.bytes;
        }
      }
    }
    return { live, peakAt, peakBytes, frees: n };
  };
  let allocations = 0;
  const end = replay(Infinity, (s, e) => {
    allocations++;
    s.allocated += e.bytes;
    s.allocatedVar += weightVariance(e.bytes, interval);
    s.count++;
  });
  const live = end.live, frees = end.frees;
  const peak = { bytes: end.peakBytes, ts: end.peakAt >= 0 ? events[end.peakAt].ts : 0 };
  const atPeak = replay(end.peakAt).live;
  for (const { site, bytes } of atPeak.values()) {
    site.peak += bytes;
    site.peakVar += weightVariance(bytes, interval);
  }
  let liveTotal = 0, allocatedTotal = 0;
  for (const { site, bytes } of live.values()) {
    site.live += bytes;
    site.liveVar += weightVariance(bytes, interval);
    liveTotal += bytes;
  }
  for (const s of sites.values()) allocatedTotal += s.allocated;
  return {
    interval, threads: new Set(events.map((e) => e.thread)).size, allocations, frees,
    peak, live: liveTotal, allocated: allocatedTotal,
    sites: [...sites.values()], stats: heapStats, wrappers: [...skipped].sort(),
    blocks: { peak: [...atPeak.values()], live: [...live.values()] },
  };
}

// A name as the folded format writes it (native/src/encoder_folded.c): ';'
// separates frames, a line ends at a control character or U+2028/U+2029.
const foldedName = (name) => String(name).replace(/;/g, ':').replace(/[\u0000-\u001f\u007f\u2028\u2029]/g, ' ') || '(unnamed)';

/**
 * Folded stacks of the blocks live at the peak ('peak') or when the session
 * stopped ('live'): "thread;outer;...;inner bytes" per distinct stack, for
 * flamegraph.pl, inferno and speedscope (a flame graph of memory).
 */
export function foldedHeap(view, which = 'peak') {
  const sums = new Map();
  for (const b of view.blocks[which]) {
    const key = [b.thread, ...b.stack].map(foldedName).join(';');
    sums.set(key, (sums.get(key) ?? 0) + b.bytes);
  }
  return [...sums].sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k} ${Math.round(v)}\n`).join('');
}

const KIB = 1024, MIB = 1024 * 1024;
export function formatBytes(n) {
  const a = Math.abs(n);
  if (a >= MIB) return `${(n / MIB).toFixed(a >= 100 * MIB ? 0 : a >= 10 * MIB ? 1 : 2)} MiB`;
  if (a >= KIB) return `${(n / KIB).toFixed(a >= 100 * KIB ? 0 : 1)} KiB`;
  return `${Math.round(n)} B`;
}

/**
 * What accuracy to expect at a sampling interval I. A site of B bytes in
 * blocks much smaller than I is seen through ~B/I samples (a Poisson
 * count), so its estimate's relative standard deviation is sqrt(I/B):
 * within +-10 % at 95 % from B = (1.96 / 0.1)^2 I = ~384 I; blocks larger
 * than I are sampled almost surely (nearly exact). A site with no sampled
 * block may still hold up to I ln 20 = ~3 I (95 %: e^(-B/I) >= 5 %).
 */
export function accuracyLine(interval) {
  return `accuracy: ±10 % (95 %) from ~${formatBytes(384 * interval)} at a site in blocks smaller than ${formatBytes(interval)}, ` +
    `±30 % from ~${formatBytes(43 * interval)}; larger blocks are nearly exact; a site not listed may hold up to ~${formatBytes(3 * interval)}`;
}

const pm = (v) => (1.96 * Math.sqrt(v) >= 1 ? ` ± ${formatBytes(1.96 * Math.sqrt(v))}` : '');

/** The text of `wasmtrace report --heap`. */
export function textHeapReport(view, { top = 10, title = 'wasmtrace heap report' } = {}) {
  const lines = [title];
  const st = view.stats;
  lines.push(view.interval
    ? `sampled on average every ${formatBytes(view.interval)} allocated (${view.interval} bytes); estimates with 95 % intervals`
    : 'heap samples (sampling interval unknown: no intervals)');
  lines.push(`${view.allocations} sampled allocations and ${view.frees} of their frees on ${view.threads} thread(s)`);
  if (st?.dropped) {
    const d = st.dropped;
    const lost = (d.queueFull ?? 0) + (d.setFull ?? 0);
    if (lost || d.freesLost) lines.push(`dropped: ${lost} samples (queue full ${d.queueFull ?? 0}, address set full ${d.setFull ?? 0}), ${d.freesLost ?? 0} frees lost (their blocks stay live here)`);
    // The intervals cover the sampling's own spread, not what was dropped:
    // say so, and by how much, so that "± 1 B" in exact mode is not read as
    // exact (the shim counts the bytes its dropped samples stood for).
    if (lost) {
      const by = Number.isFinite(d.bytes) && d.bytes > 0
        ? `up to ${formatBytes(d.bytes)} (what the dropped samples stood for)`
        : `at least ${formatBytes(lost * (view.interval ?? 1))}`;
      lines.push(`not exact: each figure below may be low by ${by}, beyond its interval ` +
        '(the shim\'s queue was full, or the heap rule kept its address set from growing)');
    }
  }
  // Sampled but not in the trace: the session's event buffer was full
  // (its own totals, kept as counters, still hold every sample).
  const missing = (st && Number.isFinite(st.allocations) ? st.allocations - view.allocations : 0) +
    (st && Number.isFinite(st.frees) ? st.frees - view.frees : 0);
  if (missing > 0) {
    lines.push(`not complete: ${missing} sampled allocations and frees are not in the trace (the session's buffer was full: raise maxBufferKB); ` +
      `the tables below lack them; the session's own totals: ~${formatBytes(st.peakBytes ?? 0)} live at the peak, ~${formatBytes(st.liveBytes ?? 0)} at stop`);
  }
  if (view.interval > 1) lines.push(accuracyLine(view.interval));
  if (view.wrappers?.length) {
    const shown = view.wrappers.slice(0, 8).map(printable).join(', ');
    lines.push(`sites: the first frame past allocation wrappers (${shown}${view.wrappers.length > 8 ? `, ... ${view.wrappers.length} in all` : ''}); --alloc-wrapper NAME names more`);
  }
  if (st?.withoutThread?.allocations) lines.push(`not attributed: ${st.withoutThread.allocations} sampled allocations (${formatBytes(st.withoutThread.bytes ?? 0)}) on threads without a wasmtrace record`);
  const table = (heading, key, total) => {
    lines.push('');
    lines.push(heading);
    const rows = view.sites.filter((s) => s[key] > 0).sort((a, b) => b[key] - a[key]).slice(0, top);
    if (!rows.length) {
      lines.push('  (none)');
      return;
    }
    for (const s of rows) {
      const share = total > 0 ? `${(100 * s[key] / total).toFixed(1)}%` : '';
      lines.push(`  ${formatBytes(s[key]).padStart(10)}${pm(s[`${key}Var`]).padEnd(14)} ${share.padStart(6)}  ${printable(s.site)}  [${printable(s.thread)}]`);
    }
  };
  table(`live at the peak: ${formatBytes(view.peak.bytes)} at ${(view.peak.ts / 1000).toFixed(1)} ms, by allocation site`, 'peak', view.peak.bytes);
  table(`live when the session stopped: ${formatBytes(view.live)}`, 'live', view.live);
  table(`allocated in all: ${formatBytes(view.allocated)}`, 'allocated', view.allocated);
  return lines.join('\n');
}
