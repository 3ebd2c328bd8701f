// `wasmtrace report`: what a trace says, in the terminal (top functions by
// self and total time, per thread) and as one offline HTML page with an
// interactive flame graph per thread (flamegraph.js, inlined).
import { readFileSync } from 'node:fs';
import { callTree, functionTable, threadTotals, weightToMs } from './profile.mjs';
import { RECORDERS } from './recorders.mjs';
import { startupSummary, startupSvg } from './startup.mjs';
import { printable, textOf } from './trace.mjs';

// printable() lives beside textOf (trace.mjs), below every reader; its
// importers take it from here as before.
export { printable };

const FLAMEGRAPH_JS = new URL('./flamegraph.js', import.meta.url);

function fmtMs(ms) {
  return ms === null ? '' : ms.toFixed(1);
}


function pct(part, whole) {
  return whole ? `${((100 * part) / whole).toFixed(1)}%` : '-';
}

function table(rows, header) {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  // Every column but the last (the function name) is right-aligned.
  const line = (cells) => cells.map((c, i) => (i === cells.length - 1 ? String(c) : String(c).padStart(widths[i]))).join('  ');
  return [line(header), ...rows.map(line)].map((l) => `    ${l}`.trimEnd());
}

/** One line about the session: format, name, sampling interval. */
function describeProfile(profile) {
  const parts = [profile.format];
  const name = profile.session?.session ?? profile.session?.name;
  if (name) parts.push(`session '${printable(name)}'`);
  parts.push(profile.intervalUs ? `sampling every ${profile.intervalUs} us` : 'sampling interval unknown');
  return parts.join(', ');
}

/** What an app linked without wasmtrace's pthread wrappers cannot show. */
export const WRAP_LINE = 'pthreads are registered on first use: link with -Wl,--wrap=pthread_create ' +
  '-Wl,--wrap=emscripten_futex_wait to see every pthread and its waiting';

/**
 * WRAP_LINE when the trace says its app was linked without the wrappers
 * (the session record's "pthreadsWrapped": false, native/src/threads.h),
 * else null (linked with them, or a trace that does not say).
 */
export function wrapNote(profile) {
  return profile?.session?.pthreadsWrapped === false ? WRAP_LINE : null;
}

/** The drop counts a trace states, as one line, or null when it states none. */
function describeDrops(profile) {
  const s = profile.stats;
  if (!s) return null;
  // Counts from the file: printed as text whatever their type.
  const d = s.dropped && typeof s.dropped === 'object' ? s.dropped : {};
  const n = (v, dflt) => printable(textOf(v ?? dflt));
  return `samples taken ${n(s.samplesTaken, '?')}, dropped ${n(s.samplesDropped, 0)}` +
    // Torn stacks only from builds before the moving-stack protocol.
    ` (buffer full ${n(d.bufferFull, 0)}${d.tornStack ? `, torn stack ${n(d.tornStack)}` : ''})` +
    (s.partialStack !== undefined ? `, partial stack ${n(s.partialStack)} (kept)` : '') +
    `; events dropped ${n(d.events, 0)}` +
    (s.ticksMissed !== undefined ? `; sampler ticks missed ${n(s.ticksMissed)}` : '');
}

/**
 * The terminal report: per thread, top functions by self time and by total
 * time. Times are samples x interval; without a known interval (folded files
 * without a header) the columns are sample counts.
 * @param {import('./index.js').Profile} profile
 * @param {{top?: number, thread?: string, title?: string}} [o]
 */
// "N samples", or where samples stand for more than one sampling period
// (ticks missed before them: profile.mjs, gridWeights) "N samples (W
// sampling periods)": the shares and times below are by periods. A folded
// file holds only the periods (its counts).
function sampleCount(profile, count, periods) {
  if (profile.format === 'folded' || count === periods) return `${periods} samples`;
  return `${count} samples (${periods} sampling periods)`;
}

export function textReport(profile, { top = 10, thread: only, title } = {}) {
  const out = [];
  const unit = profile.intervalUs ? 'ms' : 'samples';
  const value = (w) => (profile.intervalUs ? fmtMs(weightToMs(profile, w)) : String(w));
  const threads = profile.threads.filter((t) => !only || t.name === only || String(t.tid) === String(only));
  const all = profile.threads.reduce((n, t) => n + threadTotals(t).total, 0);
  const allCount = profile.threads.reduce((n, t) => n + t.samples.length, 0);
  if (title) out.push(title);
  out.push(`${describeProfile(profile)}; ${profile.threads.length} threads, ${sampleCount(profile, allCount, all)}`);
  const drops = describeDrops(profile);
  if (drops) out.push(drops);
  const wrap = wrapNote(profile);
  if (wrap) out.push(wrap);
  // What the recorders beside the samples kept (lib/recorders.mjs).
  if (!only) for (const r of RECORDERS) out.push(...r.report(profile, { printable }));
  if (only && !threads.length) {
    out.push(`no thread named '${only}' (threads: ${profile.threads.map((t) => t.name).join(', ')})`);
  }
  for (const t of threads) {
    const { total, idle, partial, waiting } = threadTotals(t);
    out.push('');
    const span = profile.intervalUs ? ` = ${fmtMs(weightToMs(profile, total))} ms sampled` : '';
    // Markers: their self time went to the frame above them (functionTable).
    const marked = (partial ? `, ${partial} partial stack (${pct(partial, total)})` : '') +
      (waiting ? `, ${waiting} waiting (${pct(waiting, total)})` : '');
    out.push(`thread '${printable(t.name)}' (tid ${t.tid}): ${sampleCount(profile, t.samples.length, total)}${span}, ${idle} idle (${pct(idle, total)})${marked}`);
    const rows = functionTable(t);
    if (!rows.length) {
      out.push('    (no busy samples)');
      continue;
    }
    // wait: the part of self spent blocked in a wait in that frame.
    const header = [`self ${unit}`, 'self%', `wait ${unit}`, `total ${unit}`, 'total%', 'function'];
    const cells = (r) => [value(r.self), pct(r.self, total), value(r.waiting), value(r.total), pct(r.total, total), printable(r.name)];
    out.push('  by self time:');
    out.push(...table(rows.filter((r) => r.self > 0).slice(0, top).map(cells), header));
    out.push('  by total time:');
    const byTotal = [...rows].sort((a, b) => b.total - a.total || b.self - a.self);
    out.push(...table(byTotal.slice(0, top).map(cells), header));
  }
  return out.join('\n');
}

// Call trees go to the page as one flat array over one string table, in
// preorder: [name index, value, self, number of children, ...] per node.
// Compact, no names in keys, and flat: a tree as deep as a 100,000-frame
// stack needs no recursion to write (JSON.stringify of nested arrays would
// overflow the stack) nor to read (flamegraph.js).
function packTree(root, strings, index) {
  const out = [];
  const todo = [root];
  while (todo.length) {
    const node = todo.pop();
    let i = index.get(node.name);
    if (i === undefined) {
      i = strings.length;
      strings.push(node.name);
      index.set(node.name, i);
    }
    out.push(i, node.value, node.self, node.children.length);
    for (let c = node.children.length - 1; c >= 0; c--) todo.push(node.children[c]);
  }
  return out;
}

/** The data the HTML page renders (also handy for tests). */
export function reportData(profile, { title = 'wasmtrace report', file = null, top = 50, colours = null, legend = null } = {}) {
  const strings = [];
  const index = new Map();
  return {
    title,
    file,
    // A diff's page (lib/diff.mjs): a colour per function name, and what they mean.
    colours,
    legend,
    format: profile.format,
    description: describeProfile(profile),
    drops: describeDrops(profile),
    intervalUs: profile.intervalUs,
    strings,
    threads: profile.threads.map((t) => {
      const totals = threadTotals(t);
      return {
        tid: t.tid,
        name: t.name,
        ...totals,
        functions: functionTable(t).filter((r) => r.self > 0).slice(0, top).map((r) => [r.name, r.self, r.total, r.waiting]),
        tree: packTree(callTree(t), strings, index),
      };
    }),
  };
}

function escapeHtml(s) {
  return String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
}

/**
 * A self-contained HTML page (no network: styles, data and the flame graph
 * renderer are inline) with one interactive flame graph per thread.
 */
export function htmlReport(profile, options = {}) {
  const data = reportData(profile, options);
  // JSON inside <script>: '<' escaped so no name can close the element.
  const json = JSON.stringify(data).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
  const js = readFileSync(FLAMEGRAPH_JS, 'utf8');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(data.title)}</title>
<style>
  :root { --fg: #1d1d1f; --muted: #6b6b70; --line: #e3e3e6; --accent: #7b3fe4; }
  * { box-sizing: border-box; }
  body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); margin: 0; padding: 16px 24px 48px; }
  h1 { font-size: 20px; margin: 0 0 4px; }
  h2 { font-size: 16px; margin: 0; }
  .meta { color: var(--muted); margin: 2px 0; }
  .toolbar { position: sticky; top: 0; background: #fff; padding: 8px 0; border-bottom: 1px solid var(--line); z-index: 2; display: flex; gap: 12px; align-items: center; flex-wrap: wrap; }
  .toolbar input { font: inherit; padding: 3px 8px; width: 18em; }
  .toolbar a { color: var(--accent); text-decoration: none; margin-right: 8px; }
  section.thread { margin-top: 22px; }
  .thread-head { display: flex; gap: 12px; align-items: baseline; flex-wrap: wrap; }
  .thread-head button { font: inherit; font-size: 12px; }
  .hint { color: var(--muted); font-size: 12px; }
  svg.flame { display: block; width: 100%; margin-top: 6px; font: 11px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
  g.frame { cursor: pointer; }
  g.frame rect { stroke: #fff; stroke-width: 0.5; }
  g.frame:hover rect { stroke: #000; stroke-width: 1; }
  g.frame.dim rect { opacity: 0.45; }
  g.frame.match rect { fill: var(--accent) !important; }
  g.frame.match text { fill: #fff; }
  g.frame text { pointer-events: none; fill: #111; }
  details { margin-top: 8px; }
  table.functions { border-collapse: collapse; font-size: 12.5px; margin-top: 4px; }
  table.functions th, table.functions td { padding: 2px 10px 2px 0; text-align: right; white-space: nowrap; }
  table.functions th:last-child, table.functions td:last-child { text-align: left; white-space: normal; font-family: ui-monospace, monospace; }
  #tooltip { position: fixed; pointer-events: none; background: #222; color: #fff; padding: 6px 8px; border-radius: 4px; font-size: 12px; max-width: 40em; display: none; z-index: 3; white-space: pre-line; }
  .empty { color: var(--muted); font-style: italic; }
  section#startup { margin: 14px 0 8px; overflow-x: auto; }
  svg.startup { display: block; margin-top: 6px; font: 12px system-ui, sans-serif; }
  svg.startup g.phase:hover rect, svg.startup g.phase:hover path { stroke: #000; stroke-width: 1; }
</style>
</head>
<body>
<h1>${escapeHtml(data.title)}</h1>
${profile.startup?.phases.length ? `<section id="startup"><h2>Startup, from navigation start</h2>
<p class="meta">${escapeHtml(startupSummary(profile.startup))}</p>
${startupSvg(profile.startup)}
${profile.startup.phases.filter((p) => p.kind === 'note').map((p) => `<p class="meta">note: ${escapeHtml(p.name)}</p>`).join('\n')}
</section>` : ''}
<div id="report" aria-live="polite"></div>
<div id="tooltip" role="tooltip"></div>
<script type="application/json" id="wasmtrace-data">${json}</script>
<script>
${js}
</script>
</body>
</html>
`;
}
