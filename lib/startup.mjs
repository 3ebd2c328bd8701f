// The startup timeline (profile.startup) and the page main thread's long
// tasks (profile.longTasks), read from the stats record every format
// carries (startupOf, longTasksOf, which lib/profile.mjs calls); what
// `wasmtrace report` prints as a waterfall and `record` as one line each,
// and the share of the time from navigation start to main() that named
// spans cover. Times are microseconds since the page's navigation start.

const ms = (us) => us / 1000;
const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const isNum = (v) => typeof v === 'number' && Number.isFinite(v);

/**
 * The startup timeline the stats record carries (native/src/phases.h; every
 * format: "startup":{"phases":[{name,kind,beginUs,endUs,bytes?}],"dropped"}),
 * as { phases: [{ name, kind, begin, end, bytes }], dropped } with times in
 * microseconds since navigation start, in begin order; null without one.
 * A phase that is not well formed is skipped and counted in dropped.
 */
export function startupOf(stats) {
  const st = isObject(stats) ? stats.startup : undefined;
  if (!isObject(st) || !Array.isArray(st.phases)) return null;
  let dropped = Number.isInteger(st.dropped) && st.dropped >= 0 ? st.dropped : 0;
  const phases = [];
  for (const p of st.phases.slice(0, 4096)) {
    if (!isObject(p) || typeof p.name !== 'string' || !['span', 'instant', 'note'].includes(p.kind) ||
        !isNum(p.beginUs) || !isNum(p.endUs) || p.endUs < p.beginUs) {
      dropped++;
      continue;
    }
    phases.push({ name: p.name.slice(0, 200), kind: p.kind, begin: p.beginUs, end: p.endUs,
      bytes: isNum(p.bytes) && p.bytes >= 0 ? p.bytes : null });
  }
  if (st.phases.length > 4096) dropped += st.phases.length - 4096;
  phases.sort((a, b) => a.begin - b.begin || b.end - a.end);
  return { phases, dropped };
}

/**
 * The page main thread's long tasks the stats record carries
 * (native/src/rec_longtask.c: "longTasks":{"observed":true,"count",
 * "totalUs","longestUs","dropped"} or {"observed":false,"reason"}), or null
 * without one (or one that is not well formed).
 */
export function longTasksOf(stats) {
  const lt = isObject(stats) ? stats.longTasks : undefined;
  if (!isObject(lt) || typeof lt.observed !== 'boolean') return null;
  if (!lt.observed) {
    return { observed: false, count: 0, totalUs: 0, longestUs: 0, dropped: 0,
      reason: typeof lt.reason === 'string' ? lt.reason.slice(0, 200) : 'not observed' };
  }
  const count = (v) => (Number.isSafeInteger(v) && v >= 0 ? v : null);
  const us = (v) => (isNum(v) && v >= 0 ? v : null);
  const out = { observed: true, count: count(lt.count), totalUs: us(lt.totalUs), longestUs: us(lt.longestUs),
    dropped: count(lt.dropped) ?? 0, reason: null };
  return out.count === null || out.totalUs === null || out.longestUs === null ? null : out;
}

/** "1,540" for 1540.2 ms; one decimal below 10 ms. */
export function fmtStartupMs(msValue) {
  if (Math.abs(msValue) < 10) return msValue.toFixed(1);
  return Math.round(msValue).toLocaleString('en-US');
}

const find = (phases, kind, test) => phases.find((p) => p.kind === kind && test(p.name));

/**
 * The moments a reader asks for first: main() entry, the app's "ready", the
 * pool workers ready before main(), the wasm fetch and compile. Each is
 * null when the timeline does not have it.
 */
export function startupMoments(timeline) {
  const phases = timeline?.phases ?? [];
  const main = find(phases, 'instant', (n) => n === 'main() starts');
  const ready = find(phases, 'instant', (n) => /^ready$/i.test(n));
  const workersReady = phases.filter((p) => p.kind === 'instant' && /^worker \d+ ready$/.test(p.name) &&
    (!main || p.begin <= main.begin));
  const wasmFetch = find(phases, 'span', (n) => /^fetch .*\.wasm$/.test(n));
  const compile = find(phases, 'span', (n) => /^(compile|instantiate)/.test(n));
  return {
    main: main ? main.begin : null,
    ready: ready ? ready.begin : null,
    workers: workersReady.length,
    workersReadyAt: workersReady.length ? Math.max(...workersReady.map((p) => p.begin)) : null,
    wasmFetch: wasmFetch ? { name: wasmFetch.name, dur: wasmFetch.end - wasmFetch.begin } : null,
    compile: compile ? { name: compile.name, dur: compile.end - compile.begin } : null,
  };
}

/**
 * The share of [0, until] (microseconds) that the timeline's spans cover,
 * 0..1 (overlaps counted once). until defaults to main() entry.
 */
export function startupCoverage(timeline, until = startupMoments(timeline).main) {
  if (!(until > 0)) return null;
  const spans = (timeline?.phases ?? []).filter((p) => p.kind === 'span' && p.end > p.begin)
    .map((p) => [Math.max(0, p.begin), Math.min(until, p.end)]).filter(([b, e]) => e > b)
    .sort((a, b) => a[0] - b[0]);
  let covered = 0, at = 0;
  for (const [b, e] of spans) {
    if (e <= at) continue;
    covered += e - Math.max(b, at);
    at = e;
  }
  return covered / until;
}

/**
 * One line: "fetch startup.wasm 152 ms, compile + instantiate (streaming)
 * 11.5 ms, 4 workers ready at 642 ms, main() at 688 ms, ready at 1,540 ms".
 * null without a timeline.
 */
export function startupSummary(timeline) {
  if (!timeline || !timeline.phases.length) return null;
  const m = startupMoments(timeline);
  const parts = [];
  if (m.wasmFetch) parts.push(`${m.wasmFetch.name} ${fmtStartupMs(ms(m.wasmFetch.dur))} ms`);
  if (m.compile) parts.push(`${m.compile.name} ${fmtStartupMs(ms(m.compile.dur))} ms`);
  if (m.workers) parts.push(`${m.workers} worker${m.workers === 1 ? '' : 's'} ready at ${fmtStartupMs(ms(m.workersReadyAt))} ms`);
  if (m.main !== null) parts.push(`main() at ${fmtStartupMs(ms(m.main))} ms`);
  if (m.ready !== null) parts.push(`ready at ${fmtStartupMs(ms(m.ready))} ms`);
  const notes = timeline.phases.filter((p) => p.kind === 'note').length;
  if (notes) parts.push(`${notes} note${notes === 1 ? '' : 's'} (wasmtrace report lists them)`);
  return parts.length ? parts.join(', ') : `${timeline.phases.length} phases`;
}

/**
 * One line for the page main thread's long tasks (longTasksOf): "3, 412 ms
 * in all, longest 250 ms", "none", or "not observed: why"; null without
 * them.
 */
export function longTaskSummary(longTasks) {
  if (!longTasks) return null;
  if (!longTasks.observed) return `not observed: ${longTasks.reason}`;
  const lost = longTasks.dropped ? ` (${longTasks.dropped} more not kept)` : '';
  if (!longTasks.count) return `none${lost}`;
  return `${longTasks.count}, ${fmtStartupMs(ms(longTasks.totalUs))} ms in all, longest ` +
    `${fmtStartupMs(ms(longTasks.longestUs))} ms${lost}`;
}

/**
 * The waterfall: one row per span and instant, in begin order, with a bar
 * on a common scale from navigation start to the last phase shown; notes
 * after it. `printable` cleans names for a terminal.
 */
export function startupWaterfall(timeline, { width = 32, printable = (s) => s } = {}) {
  if (!timeline || !timeline.phases.length) return [];
  const rows = timeline.phases.filter((p) => p.kind !== 'note');
  // The scale ends at main() or the app's "ready", whichever is later
  // (main()'s own span runs off the end); without either, at the last end.
  const m = startupMoments(timeline);
  const end = Math.max(1, m.main ?? 0, m.ready ?? 0) > 1 ? Math.max(m.main ?? 0, m.ready ?? 0) * 1.02
    : Math.max(1, ...rows.map((p) => p.end));
  const cell = (us) => Math.min(width - 1, Math.floor((us / end) * width));
  const out = [];
  const cover = startupCoverage(timeline);
  out.push(`startup, from navigation start${cover === null ? '' : ` (named spans cover ${(cover * 100).toFixed(1)}% of the time to main())`}:`);
  for (const p of rows) {
    const bar = Array(width).fill(' ');
    if (p.kind === 'instant') {
      bar[cell(p.begin)] = '|';
    } else {
      for (let c = cell(p.begin); c <= cell(p.end); c++) bar[c] = '#';
    }
    const when = p.kind === 'instant' ? `${fmtStartupMs(ms(p.begin))} ms`.padStart(19)
      : `${fmtStartupMs(ms(p.begin))}-${fmtStartupMs(ms(p.end))} ms`.padStart(19);
    const dur = p.kind === 'instant' ? ''.padStart(10) : `${fmtStartupMs(ms(p.end - p.begin))} ms`.padStart(10);
    const bytes = p.bytes !== null && p.bytes !== undefined ? ` (${(p.bytes / 1024).toFixed(1)} KiB)` : '';
    out.push(`  ${when} ${dur}  [${bar.join('')}]  ${printable(p.name)}${bytes}`);
  }
  for (const p of timeline.phases.filter((x) => x.kind === 'note')) {
    out.push(`  note at ${fmtStartupMs(ms(p.begin))} ms: ${printable(p.name)}`);
  }
  if (timeline.dropped) out.push(`  ${timeline.dropped} phases were refused or left out (the timeline holds 256)`);
  return out;
}

const escapeXml = (s) => String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);

// Bar colours by what a phase is.
function colourOf(name) {
  if (/^(request|parse) document$|^evaluate /.test(name)) return '#8e8e93';
  if (/^fetch /.test(name)) return '#2f7ed8';
  if (/^(compile|instantiate)/.test(name)) return '#7b3fe4';
  if (/worker/.test(name)) return '#e8912d';
  if (/^run dependency/.test(name)) return '#c0a300';
  if (/^(preRun|runtime init|constructors)$/.test(name)) return '#3aa76d';
  if (/^main\(\)/.test(name)) return '#d1495b';
  return '#555';
}

/**
 * The waterfall as an SVG element (for `wasmtrace report --html`): one row
 * per span and instant in begin order, a time axis from navigation start,
 * the name and duration beside each bar, and a tooltip (<title>) with the
 * exact times. '' without a timeline.
 */
export function startupSvg(timeline, { width = 1100 } = {}) {
  if (!timeline || !timeline.phases.length) return '';
  const rows = timeline.phases.filter((p) => p.kind !== 'note');
  const m = startupMoments(timeline);
  const endUs = Math.max(m.main ?? 0, m.ready ?? 0) > 0 ? Math.max(m.main ?? 0, m.ready ?? 0) * 1.04
    : Math.max(1, ...rows.map((p) => p.end));
  const label = 300, plot = width - label - 20, rowH = 18, top = 24;
  const x = (us) => label + Math.min(plot, (Math.max(0, us) / endUs) * plot);
  const height = top + rows.length * rowH + 8;
  const out = [`<svg class="startup" xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="startup waterfall">`];
  // Axis: ticks at round milliseconds.
  const spanMs = endUs / 1000;
  const step = [1, 2, 5, 10, 20, 50, 100, 200, 250, 500, 1000, 2000, 5000, 10000].find((s) => spanMs / s <= 10) ?? 20000;
  for (let t = 0; t <= spanMs; t += step) {
    const px = x(t * 1000).toFixed(1);
    out.push(`<line x1="${px}" y1="${top - 6}" x2="${px}" y2="${height}" stroke="#e3e3e6"/>`,
      `<text x="${px}" y="${top - 10}" text-anchor="middle" fill="#6b6b70">${fmtStartupMs(t)} ms</text>`);
  }
  rows.forEach((p, i) => {
    const y = top + i * rowH;
    const when = p.kind === 'instant' ? `${fmtStartupMs(ms(p.begin))} ms`
      : `${fmtStartupMs(ms(p.begin))}–${fmtStartupMs(ms(p.end))} ms (${fmtStartupMs(ms(p.end - p.begin))} ms)`;
    const bytes = p.bytes !== null && p.bytes !== undefined ? `, ${(p.bytes / 1024).toFixed(1)} KiB` : '';
    out.push(`<g class="phase"><title>${escapeXml(`${p.name}: ${when}${bytes}`)}</title>`,
      `<text x="${label - 8}" y="${y + 13}" text-anchor="end">${escapeXml(p.name.length > 42 ? `${p.name.slice(0, 41)}…` : p.name)}</text>`);
    if (p.kind === 'instant') {
      const px = x(p.begin);
      out.push(`<path d="M${px.toFixed(1)} ${y + 3} l5 6 l-5 6 l-5 -6 z" fill="${colourOf(p.name)}"/>`);
    } else {
      const x0 = x(p.begin), x1 = Math.max(x0 + 1.5, x(p.end));
      out.push(`<rect x="${x0.toFixed(1)}" y="${y + 3}" width="${(x1 - x0).toFixed(1)}" height="${rowH - 6}" rx="2" fill="${colourOf(p.name)}"/>`);
      const text = `${fmtStartupMs(ms(p.end - p.begin))} ms`;
      if (x1 + 60 < width) out.push(`<text x="${(x1 + 4).toFixed(1)}" y="${y + 13}" fill="#6b6b70">${text}</text>`);
    }
    out.push('</g>');
  });
  out.push('</svg>');
  return out.join('\n');
}
