// The `wasmtrace` command: record, report, diff and the diagnostic server's
// tools. bin/wasmtrace.mjs calls main(). Exit status: 0 done, 1 the
// recording or report failed (the message says what to do) or diff found
// something slower, 2 the command line or diff's input is wrong, 3 diff
// undecided with --fail-on-undecided.
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { readProfile, functionTable, threadTotals } from './profile.mjs';
import { compare, DiffError, diffStatus, htmlDiff, identities, isOneOf, jsonDiff, markdownDiff, parseThreshold, readSide, sideFiles, textDiff } from './diff.mjs';
import { foldedHeap, heapNote, heapView, textHeapReport } from './heap.mjs';
import { htmlReport, printable, textReport, wrapNote } from './report.mjs';
import { isJsProfileThread, JS_THREAD_NAME } from './jsprofile.mjs';
import { startupSummary } from './startup.mjs';
import { serve } from './serve.mjs';
import { BROWSERS, launch } from './browser.mjs';
import {
  adviceFor, collectTraces, configure, waitForSessions, waitForWasmtrace, watchPage, WasmtraceError,
} from '../js/playwright.mjs';
// The browser drivers (playwright-core for Chromium, puppeteer-core for
// Firefox) are imported by `record` only (lib/browser.mjs loads them on
// launch): --help, --version and `report` work without them (a checkout
// without node_modules).

const VERSION = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version;

const HELP = `wasmtrace ${VERSION}: record and read traces of Emscripten pthread apps

usage:
  wasmtrace record <build dir | page.html | URL> [options]
  wasmtrace report <trace file> [--html out.html] [options]
  wasmtrace diff <base traces> <new traces> [options]
  wasmtrace convert <trace file> --to pprof [-o out.pb.gz] [--heap]
  wasmtrace flags --cflags | --ldflags [--heap] [--formats] [--with-server] [--build]
  wasmtrace deps

record: loads the page in headless Chromium or Firefox (a directory is
served on 127.0.0.1 with the cross-origin isolation headers pthreads need),
waits, stops the wasmtrace sessions and writes each trace to --out.

  config (without any, the page's own config is used):
    --config <file | JSON>   the config blob (config/wasmtrace.schema.json)
    --startup <duration>     one startup session that stops after <duration>
                             (default 5s unless --wait-for/--duration is given)
    --interval <duration>    sampling interval, e.g. 1ms, 250us
    --format <name>          chrome (default), firefox or folded
    The presets apply to every session of --config. The config reaches the
    page before its scripts run, as Module.wasmtraceConfig (it wins over the
    page's own) and as globalThis.wasmtraceConfig (for -sMODULARIZE builds);
    never in the URL.
  when to stop (first that happens):
    --wait-for <js expr>     when this expression is true in the page
    --duration <duration>    this long after the page started loading
    (always) when every session has stopped by itself (durationMs)
    A config with a "server" and no sessions keeps the page for
    --duration/--wait-for, for the tools that record it (serve --once).
    --timeout <duration>     give up waiting (default 60s; exit status 1,
                             traces are still written)
    It ends at once (exit status 1) when the app aborts (the traces of
    sessions that had stopped are still written) or the page navigates
    away, closes or crashes (the traces are lost).
  page and browser:
    --page <path>            page inside the directory (default index.html)
    --module <js expr>       where the Emscripten Module object is
                             (default globalThis.Module)
    --load-timeout <dur>     how long the module may take to start (default 30s)
    --browser <name>         chromium (default, or $WASMTRACE_BROWSER) or
                             firefox: Debian's chromium (playwright-core) or
                             firefox-esr (puppeteer-core, WebDriver BiDi)
    --browser-path <path>    that browser's executable (default
                             $WASMTRACE_CHROMIUM or /usr/bin/chromium;
                             $WASMTRACE_FIREFOX or /usr/bin/firefox-esr)
    --chromium <path>        the same as --browser-path, for Chromium
    --browser-arg <arg>      one more command-line argument for the browser
                             (repeatable), after wasmtrace's own; write it
                             with '=' (the value starts with a dash), e.g.
                             --browser-arg=--js-flags=--no-liftoff (Chromium:
                             wasm compiled by the optimizing tier only)
    --port <n>               serve on this port (default: any free port)
    --no-js-profile          no "main (JS)" thread: the server does not send
                             Document-Policy: js-profiling, and the page's
                             JS profile is not added (Chromium samples the
                             main thread's JS and wasm at 10 ms with it)
  output:
    -o, --out <dir>          where traces go (default wasmtrace-traces)
    --top <n>                functions in the summary (default 5)
    -q, --quiet              no progress lines
    --repeat <n>             record the page n times, each in a fresh
                             browser, into <out>/run-01 ... run-<n> (for
                             wasmtrace diff); one summary with the spread

report: prints the top functions by self and total time of each thread.
    --html <file>            also write an offline page with a flame graph
                             per thread
    --top <n>                rows per table (default 10)
    --thread <name>          only this thread
    --heap                   the heap instead (a session with "heap" in its
                             config, firefox format): by allocation site,
                             live at the peak, live at stop and allocated,
                             estimates with 95 % intervals
    --folded <file>          with --heap: also write the stacks live at the
                             heap's peak as folded stacks weighted by bytes
                             (a memory flame graph for speedscope, inferno)
    --alloc-wrapper <name>   with --heap: one more allocation wrapper to see
                             past (repeatable); a site is the first frame
                             past malloc-like wrappers (names ending in
                             "alloc", operator new)
    --format <name>          read the file as chrome, firefox or folded
                             (default: told by its content)

diff: did the new build get slower? Runs of each build (a directory of
traces, or one file; --base F / --new F repeated for lists): per function
(self and total), per thread and for the whole window, the difference of
the mean time per run with its 95 % interval (Welch), all tested at once at
a false discovery rate of 0.05 (Benjamini-Hochberg); a verdict for each and
overall: slower, faster, same or undecided (docs/GUIDE.md, "Did it get
slower?"). Exit status: 1 if anything got slower, 0 if not, 2 on bad input.
    --threshold <t>          ignore differences below it: 2%, 1ms, or both
                             (2%,1ms: default; a difference must pass both)
    --top <n>                rows in the table (default 20)
    --markdown <file>        also write a Markdown summary (a PR comment)
    --json <file>            also write every row, with each run's value
    --html <file>            also write a differential flame graph (the new
                             runs; red slower, blue faster, grey no change)
    --fail-on-undecided      exit 3 when the verdict is undecided
    --min-share <pct>        test only times of at least this share of the
                             window on one side (default 0.5)
    --session <name>         compare this session's traces (a directory
                             with traces of several sessions)
    --paired                 base run i was recorded beside new run i (in
                             turns): a paired test, which cancels the drift
                             a pair shares; as many runs a side

convert: a trace as a gzip'd pprof profile (go tool pprof, Pyroscope,
Parca, speedscope): every thread's CPU samples, the thread a label.
    -o, --out <file>         where (default: the trace's name + .pb.gz)
    --heap                   the sampled heap instead (alloc_space,
                             inuse_space at stop, peak_space)
    --thread <name>          only this thread
    --format <name>          read the file as chrome, firefox or folded
                             (default: told by its content)

flags: the compile and link flags for plain emcc, pkg-config style, of the
library built once with your emcc (wasmtrace flags --build does that).
    --cflags | --ldflags     which (--heap adds the allocator shim,
                             --formats the firefox and folded formats,
                             --with-server the diagnostic server's page code)
    --build                  build the library now (emcmake cmake; once per
                             emcc version), then print what is asked
  It lives under ~/.cache/wasmtrace ($WASMTRACE_CACHE), with the pkg-config
  files wasmtrace.pc, wasmtrace-heap.pc, wasmtrace-formats.pc and wasmtrace-server.pc
  (PKG_CONFIG_PATH=<it>/lib/pkgconfig).

deps: fetches the cJSON and zlib sources the library compiles with into
~/.cache/wasmtrace/deps ($WASMTRACE_DEPS_DIR; apt-get source on Debian and
Ubuntu), where CMake (add_subdirectory) and flags --build find them.

diagnostic server (docs/GUIDE.md, "Live: wasmtrace serve"; docs/PROTOCOL.md):
  wasmtrace serve [--port 9777] [--host 127.0.0.1] [--token T] [--allow-origin O]
      the router pages with a "server" config connect to; prints each page
      that connects and disconnects; runs until Ctrl-C. Pages from loopback
      origins are allowed, others only with --allow-origin (repeatable, '*'
      for all); --token (or $WASMTRACE_TOKEN) is then required of pages and
      tools alike.
  wasmtrace pages                        the connected pages
  wasmtrace collect <page id | --first> [--resume] [--duration D] [-o dir]
      starts a session on the page (presets --config/--interval/--format,
      and --startup for a durationMs, as for record) and streams its trace
      into a file under --out while it records; stops after --duration, on
      Ctrl-C, or when the session ends by itself (durationMs); prints the
      summary (--top functions in it; -q, --quiet: no progress lines)
  wasmtrace resume <page id | --first>   lets a suspended page start
  wasmtrace serve --once --duration D [presets] [-o dir]
      CI: a router, the first page that connects, resumed, collected for D
    --server <ws://host:port> the router tools use (default $WASMTRACE_SERVER,
                             else ws://127.0.0.1:9777)

Durations: 5s, 500ms, 250us, 2m; a bare number is milliseconds.
`;

class UsageError extends Error {}

/** "5s" -> 5000 (ms). Bare numbers are milliseconds. */
export function parseDuration(text, what) {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(us|µs|ms|s|m|min)?\s*$/.exec(String(text));
  if (!m) throw new UsageError(`${what}: '${text}' is not a duration (e.g. 5s, 500ms, 250us)`);
  const scale = { us: 1e-3, 'µs': 1e-3, ms: 1, s: 1000, m: 60000, min: 60000 }[m[2] || 'ms'];
  return Number(m[1]) * scale;
}

function readConfigOption(value) {
  const text = value.trim().startsWith('{') ? value : (() => {
    if (!existsSync(value)) throw new UsageError(`--config: no file '${value}' (give a file or inline JSON starting with '{')`);
    return readFileSync(value, 'utf8');
  })();
  let config;
  try {
    config = JSON.parse(text);
  } catch (e) {
    throw new UsageError(`--config: not valid JSON: ${e.message}`);
  }
  // A config with only a `server` needs no sessions (a tool starts them).
  if (!config || typeof config !== 'object' ||
      !(Array.isArray(config.sessions) || (config.sessions === undefined && config.server !== undefined))) {
    throw new UsageError('--config: expected an object with a "sessions" array (see config/wasmtrace.schema.json)');
  }
  return config;
}

/**
 * The config blob the command line asks for, or null to leave the page's
 * own config alone.
 */
export function buildConfig(v) {
  const presets = v.startup !== undefined || v.interval !== undefined || v.format !== undefined;
  let config = v.config !== undefined ? readConfigOption(v.config) : null;
  if (!config && !presets) return null;
  config ??= { sessions: [{ name: 'startup' }] };
  const waitsOtherwise = v['wait-for'] !== undefined || v.duration !== undefined;
  const fromPresets = v.config === undefined;
  for (const s of config.sessions ?? []) {
    if (v.startup !== undefined) s.durationMs = Math.round(parseDuration(v.startup, '--startup'));
    else if (fromPresets && !waitsOtherwise) s.durationMs = 5000;
    if (v.interval !== undefined) {
      const us = Math.round(parseDuration(v.interval, '--interval') * 1000);
      s.sampling = { ...(s.sampling || {}), intervalUs: us };
    }
    if (v.format !== undefined) {
      if (!['chrome', 'firefox', 'folded'].includes(v.format)) {
        throw new UsageError(`--format: '${v.format}' is not one of chrome, firefox, folded`);
      }
      s.format = v.format;
    }
  }
  return config;
}

function kib(n) {
  return n >= 1024 * 1024 ? `${(n / 1048576).toFixed(1)} MiB` : `${(n / 1024).toFixed(1)} KiB`;
}

/** A path as the user would type it: relative below the cwd, else absolute. */
function shown(file, cwd = process.cwd()) {
  const rel = relative(cwd, file);
  return rel && !rel.startsWith('..') ? rel : file;
}

function secs(ms) {
  return `${(ms / 1000).toFixed(1)} s`;
}

// Lines the page printed that explain a failure (Emscripten's pool warning,
// wasmtrace's own messages, uncaught errors).
function evidence(consoleLines) {
  const wanted = /wasmtrace|pthread|thread pool|PTHREAD_POOL|abort|error|exception|SharedArrayBuffer/i;
  const seen = new Set();
  return consoleLines.filter((l) => wanted.test(l) && !/Failed to load resource/.test(l) && !seen.has(l) && seen.add(l)).slice(-8);
}

const count = (n) => (Number.isFinite(Number(n)) && Number(n) > 0 ? Number(n) : 0);

/**
 * Lines about the limits a recording hit, each with what to do: threads the
 * registry refused, samples and events dropped for want of room. `stats` is
 * the trace's stats record (profile.stats), `live` the page's
 * session.stats() (either may be missing or older, without some counts).
 */
export function limitNotes(stats, live) {
  const s = stats && typeof stats === 'object' ? stats : {};
  const l = live && typeof live === 'object' ? live : {};
  const d = s.dropped && typeof s.dropped === 'object' ? s.dropped : {};
  const notes = [];
  const refused = Math.max(count(d.threadsNotRegistered), count(s.threadsRefused), count(l.threadsRefused));
  if (refused) {
    notes.push(`${refused} thread(s) were not recorded: the thread registry was full (its limit, WT_MAX_THREADS, counts ` +
      'the threads that hold a record at once: a record is reused once its thread exited and no session needs it). ' +
      'Their samples and events are not in this trace: ' +
      'reuse threads (a pool) instead of starting one per task (docs/GUIDE.md, "Limits")');
  }
  const full = Math.max(count(d.bufferFull), count(l.samplesDroppedBufferFull));
  if (full) {
    notes.push(`${full} sample(s) dropped because the session's buffer was full: raise maxBufferKB in the config ` +
      '(or whenFull: "ring" keeps the newest data instead of the first)');
  }
  const events = Math.max(count(d.events), count(l.eventsDropped));
  if (events) {
    notes.push(`${events} event(s) dropped because a buffer was full: raise maxBufferKB, or record fewer categories`);
  }
  return notes;
}

export function summarizeSession(r, { top = 5, cwd = process.cwd() } = {}) {
  const lines = [];
  const st = r.stats || {};
  const where = r.file ? shown(r.file, cwd) : '(not written)';
  if (r.error) {
    lines.push(`session '${r.name}': FAILED: ${r.error}`);
    if (r.advice) lines.push(`  what to do: ${r.advice}`);
    return lines;
  }
  const p = r.profile;
  lines.push(`session '${r.name}': ${r.state}, ${p ? p.format : '?'} trace ${where} (${kib(r.bytes.length)})`);
  lines.push(`  ${st.threads ?? p?.threads.length ?? '?'} threads, ${st.samplesWritten ?? '?'} samples ` +
    // Torn copies are gone since the moving-stack protocol (a moving stack
    // is kept partial): the count is shown only if an older build made some.
    `(${st.samplesDropped ?? 0} dropped: ${st.samplesDroppedBufferFull ?? 0} buffer full${st.samplesDroppedTornStack ? `, ${st.samplesDroppedTornStack} torn` : ''}; ` +
    `${st.samplesPartial ?? 0} partial stack, kept), ` +
    `${st.eventsWritten ?? 0} events (${st.eventsDropped ?? 0} dropped), sampler ticks missed ${st.ticksMissed ?? 0}`);
  // Why a session stopped before it was asked to (the trace's stats record):
  // out of memory, or the app's heap ran low (docs/GUIDE.md, "Memory").
  if (typeof p?.stats?.stoppedEarly === 'string') lines.push(`  stopped early: ${printable(p.stats.stoppedEarly)}`);
  for (const note of limitNotes(p?.stats, st)) lines.push(`  limit: ${note}`);
  const wrap = wrapNote(p);
  if (wrap) lines.push(`  ${wrap}`);
  const heap = heapNote(p);
  if (heap) lines.push(`  ${printable(heap)}`);
  const startup = startupSummary(p?.startup);
  if (startup) lines.push(`  startup: ${printable(startup)}`);
  if (r.jsProfile) {
    lines.push(r.jsProfile.samples
      ? `  ${JS_THREAD_NAME}: ${r.jsProfile.samples} samples of the page main thread's JS and wasm (the browser's JS Self-Profiling API)`
      : `  ${JS_THREAD_NAME}: none: ${printable(r.jsProfile.reason)}`);
    const ws = (r.jsProfile.workers ?? []).filter((w) => w.samples);
    if (ws.length) lines.push(`  workers (JS): ${ws.map((w) => `${printable(w.name)} ${w.samples}`).join(', ')} samples`);
    if (r.jsProfile.workersReason) lines.push(`  workers (JS): ${printable(r.jsProfile.workersReason)}`);
  }
  if (r.parseError) {
    lines.push(`  could not read the trace back: ${r.parseError}`);
    return lines;
  }
  const nameWidth = Math.max(8, ...p.threads.map((t) => printable(t.name).length));
  // waiting: the thread's share of samples blocked in a wait; the top
  // functions rank running self time (report's wait column says where
  // threads wait).
  lines.push(`  ${'thread'.padEnd(nameWidth)}  samples   idle  partial  waiting  top self functions (running)`);
  let all = 0;
  const totals = new Map();
  for (const t of p.threads) {
    const { total, idle, partial, waiting } = threadTotals(t);
    if (!isJsProfileThread(t.name)) all += total;
    const rows = functionTable(t).map((x) => ({ name: x.name, self: x.self - x.waiting })).filter((x) => x.self > 0)
      .sort((a, b) => b.self - a.self);
    // The JS profiles are a second view of threads: not counted twice.
    if (!isJsProfileThread(t.name)) for (const x of rows) totals.set(x.name, (totals.get(x.name) || 0) + x.self);
    const topRows = rows.slice(0, 3).map((x) => `${printable(x.name)} ${x.self * 100 < total ? "<1" : ((100 * x.self) / total).toFixed(0)}%`).join(', ');
    const waitPct = total ? `${((100 * waiting) / total).toFixed(0)}%` : '-';
    lines.push(`  ${printable(t.name).padEnd(nameWidth)}  ${String(total).padStart(7)}  ${String(idle).padStart(5)}  ${String(partial).padStart(7)}  ${waitPct.padStart(7)}  ${topRows || '-'}`);
  }
  lines.push(`  top self functions, all threads${p.threads.some((t) => isJsProfileThread(t.name)) ? ' but the (JS) ones' : ''} (${all} samples):`);
  for (const [name, n] of [...totals].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    lines.push(`    ${((100 * n) / all).toFixed(1).padStart(5)}%  ${printable(name)}`);
  }
  if (p.format === 'chrome') {
    const firsts = p.threads.filter((t) => t.samples.length).map((t) => t.samples[0].ts);
    if (firsts.length) {
      lines.push(`  first sample ${(Math.min(...firsts) / 1000).toFixed(1)} ms after navigation start; ` +
        `stop() took ${(r.stopMs ?? 0).toFixed(1)} ms`);
    }
  }
  return lines;
}

/** Where to load the app from: a URL, or a directory (and page) to serve. */
function resolveTarget(target, pageOption) {
  if (/^https?:\/\//i.test(target)) return { url: target };
  const path = resolve(target);
  if (!existsSync(path)) throw new UsageError(`record: '${target}' is neither a directory, an HTML file nor an http(s) URL`);
  if (statSync(path).isDirectory()) return { dir: path, page: pageOption || 'index.html' };
  return { dir: dirname(path), page: basename(path) };
}

const noSessions = (why) => new WasmtraceError('no-sessions', 'wasmtrace: the page has no wasmtrace sessions: ' +
  `give a config (--startup 5s, --config file.json) or set Module.wasmtraceConfig in the page${why}`);

// "'a' starting, 'b' failed" (the shim's line before main()) as
// "'a', 'b' (failed)": a session that is starting there is running by now.
function startedSessions(says) {
  return says.split(/, (?=')/).map((x) => x.replace(/ (starting|running)$/, '').replace(/ (\w+)$/, ' ($1)')).join(', ');
}

// Progress note while the page's pool-exhaustion line stands.
const poolNote = 'the page said the pthread pool is exhausted';

/** The cause of a blocked main thread, from the shim's pool-exhaustion line. */
function blockedByPool(line) {
  return `main() waits for a pthread that cannot start (no free worker in the pthread pool): ${adviceFor(line)}`;
}

/**
 * The browser `record` drives: --browser (else $WASMTRACE_BROWSER, else
 * chromium) and its executable (--browser-path, or --chromium for Chromium;
 * undefined: lib/browser.mjs finds the system's).
 */
export function recordBrowser(v, env = process.env) {
  const browserName = v.browser ?? (env.WASMTRACE_BROWSER || 'chromium');
  if (!BROWSERS.includes(browserName)) {
    throw new UsageError(`${v.browser !== undefined ? '--browser' : 'WASMTRACE_BROWSER'}: '${browserName}' is not one of ${BROWSERS.join(', ')}`);
  }
  if (v.chromium !== undefined && browserName !== 'chromium') {
    throw new UsageError(`--chromium names a Chromium executable, but the browser is ${browserName}: use --browser-path`);
  }
  if (v.chromium !== undefined && v['browser-path'] !== undefined) {
    throw new UsageError('--chromium and --browser-path say the same thing: give one');
  }
  return { browserName, executablePath: v['browser-path'] ?? v.chromium };
}

async function record(positionals, v, io) {
  if (positionals.length !== 1) throw new UsageError('record: give one build directory, HTML file or URL');
  const { browserName, executablePath } = recordBrowser(v);
  const target = resolveTarget(positionals[0], v.page);
  if (target.dir && !existsSync(resolve(target.dir, target.page.split('?')[0]))) {
    throw new UsageError(`record: no ${target.page} in ${target.dir} (use --page to name the app's page)`);
  }
  const config = buildConfig(v);
  // A config that names a diagnostic server: the page is kept for
  // --duration/--wait-for even without sessions of its own, so that a tool
  // (wasmtrace serve --once) can record it (docs/GUIDE.md, "Live: wasmtrace serve").
  const serverPage = config?.server !== undefined;
  if (serverPage && !(config.sessions ?? []).length && v.duration === undefined && v['wait-for'] === undefined) {
    throw new UsageError('record: the config has a server and no sessions: give --duration or --wait-for (how long ' +
      'to keep the page for the tools that record it)');
  }
  const timeoutMs = parseDuration(v.timeout ?? '60s', '--timeout');
  const loadTimeoutMs = parseDuration(v['load-timeout'] ?? '30s', '--load-timeout');
  const durationMs = v.duration !== undefined ? parseDuration(v.duration, '--duration') : undefined;
  const top = v.top !== undefined ? Number(v.top) : 5;
  const outDir = resolve(v.out ?? 'wasmtrace-traces');
  const progress = v.quiet ? () => {} : (line) => io.err(`wasmtrace record: ${line}`);
  const t0 = Date.now();

  const jsProfile = !v['no-js-profile'];
  const server = target.dir ? await serve(target.dir, { port: v.port ? Number(v.port) : 0, jsProfiling: jsProfile }) : null;
  let browser = null;
  let page = null;
  const consoleLines = [];
  const failed = [];
  let beforeMain = null;
  let poolLine = null;
  try {
    try {
      browser = await launch({ browser: browserName, executablePath, logPageErrors: false, args: v['browser-arg'] ?? [] });
    } catch (e) {
      if (e.code !== 'ERR_MODULE_NOT_FOUND' || !e.driver) throw e;
      throw new Error(`record needs the browser driver ${e.driver} (npm install): ${e.cause}`);
    }
    if (!v.quiet) progress(`browser: ${browser.version()}`); // a --version run: only when shown
    page = await browser.newPage();
    // What the shim says on the console just before main() (js/wasmtrace_post.js),
    // and the pool-exhaustion line (js/wasmtrace_library.js): both arrive
    // even while main() keeps the page's main thread busy, when the page
    // cannot answer anything else.
    page.on('console', (m) => {
      const text = m.text();
      consoleLines.push(`[${m.type()}] ${text}`);
      const bm = /^wasmtrace: before main\(\): (.*)$/s.exec(text);
      if (bm && !beforeMain) beforeMain = { at: Date.now(), says: bm[1] };
      if (/^wasmtrace: the pthread pool is exhausted/.test(text)) poolLine = text;
    });
    page.on('pageerror', (e) => consoleLines.push(`[page error] ${e.message}`));
    page.on('response', (r) => {
      if (r.status() >= 400 && !/\/favicon\.ico$/.test(r.url())) failed.push(`${r.status()} ${r.url()}`);
    });
    let url = target.url ?? server.url + target.page.replace(/^\/+/, '');
    watchPage(page);
    if (config) {
      await configure(page, config);
      const text = JSON.stringify(config);
      progress(`config: ${text.length <= 400 ? text : `${(config.sessions ?? []).length} session(s), ${kib(text.length)} of JSON`}`);
    }
    progress(`loading ${url.split('?')[0]}`);
    const navStart = Date.now();
    try {
      await page.goto(url, { waitUntil: 'domcontentloaded', timeout: loadTimeoutMs });
    } catch (e) {
      const first = e.message.split('\n')[0];
      // A page whose main thread blocks before its document is loaded
      // (a main() waiting for a pthread that cannot start) ends here.
      if (e.name === 'TimeoutError' || /Timeout \d+ms exceeded/.test(first)) {
        throw new WasmtraceError('load', `wasmtrace: the page did not finish loading in ${secs(loadTimeoutMs)}: ` +
          (poolLine ? blockedByPool(poolLine) : "its main thread never came back to its event loop (the app's " +
            'startup blocks it? a main() that waits for a pthread hangs when no pool worker is free: ' +
            'link with -sPTHREAD_POOL_SIZE=<app threads + 1>), or the server is too slow (raise --load-timeout)') +
          ` (${first})`);
      }
      throw new WasmtraceError('load', `wasmtrace: could not load ${url}: ${first}`);
    }
    if (failed.length) progress(`the page could not load: ${failed.join(', ')}`);
    let lastStatus = '';
    let lastShown = 0;
    const ready = await waitForWasmtrace(page, {
      timeoutMs: loadTimeoutMs,
      module: v.module,
      onProgress: ({ elapsedMs, status }) => {
        // The page said before main() that nothing records: say so now,
        // not after main() (a long startup) or --load-timeout.
        if (beforeMain && /^the config was rejected: /.test(beforeMain.says)) {
          throw new WasmtraceError('config', `wasmtrace: the config was rejected: ${beforeMain.says.replace(/^the config was rejected: /, '')}`);
        }
        if (beforeMain && beforeMain.says === 'no startup sessions' && !serverPage) throw noSessions(' (the page said so before main(); not waiting for main() to end)');
        // Say what we wait for when it changes, and every 2 s while it lasts.
        if (elapsedMs < 1000 || (status === lastStatus && elapsedMs - lastShown < 2000)) return;
        const t = secs(Date.now() - navStart);
        // Once the page said so before main(), anything short of ready
        // is main() (or what follows it) holding the page's main thread.
        if (beforeMain) {
          // main() is running: the sessions record on their own worker.
          progress(beforeMain.says === 'no startup sessions'
            ? `${t}: main() keeps the page's main thread busy (no sessions of its own: a tool's record on their own worker)`
            : `${t}: main() keeps the page's main thread busy; the startup sessions started ` +
            `${secs(beforeMain.at - navStart)} after navigation, before main(), and record on their own worker: ` +
            `${startedSessions(beforeMain.says)}${poolLine ? `; ${poolNote}` : ''}`);
        } else {
          const what = { busy: "the page's main thread is busy", 'no-module': 'no Module object yet',
            'no-api': 'no Module.wasmtrace yet', 'not-initialized': 'the runtime is starting' }[status] ?? status;
          progress(`${t}: waiting for the module (${what})${poolLine ? `; ${poolNote}` : ''}`);
        }
        lastStatus = status;
        lastShown = elapsedMs;
      },
    });
    if (ready.configError) {
      throw new WasmtraceError('config', `wasmtrace: the config was rejected: ${ready.configError}`);
    }
    if (!ready.sessions.length && !serverPage) throw noSessions('');
    for (const s of ready.sessions) {
      if (s.state === 'failed') progress(`session '${s.name}' failed: ${s.error}`);
    }
    const live = ready.sessions.filter((s) => s.state !== 'failed');
    let waited = { reason: 'sessions' };
    if (live.length || serverPage) {
      const conditions = [
        v['wait-for'] !== undefined && `--wait-for ${v['wait-for']}`,
        durationMs !== undefined && `--duration ${secs(durationMs)}`,
        live.length && 'the sessions to stop by themselves',
      ].filter(Boolean);
      progress(live.length ? `recording ${live.map((s) => `'${s.name}'`).join(', ')}; waiting for ${conditions.join(' or ')}`
        : `no sessions of its own: keeping the page for the diagnostic server's tools; waiting for ${conditions.join(' or ')}`);
      waited = await waitForSessions(page, {
        until: v['wait-for'],
        durationMs: durationMs !== undefined ? Math.max(0, durationMs - (Date.now() - navStart)) : undefined,
        timeoutMs,
        module: v.module,
        onProgress: ({ elapsedMs, busy, status }) => {
          const t = secs(Date.now() - navStart);
          if (busy) {
            progress(`${t}: the page's main thread is busy (waited ${secs(elapsedMs)}); ` +
              `the sessions record on their own worker${poolLine ? `; ${poolNote}` : ''}`);
            return;
          }
          if (!status) return;
          for (const s of status.sessions) {
            progress(`${t}: '${s.name}' ${s.state}, ${s.stats.samplesTaken} samples, ${s.stats.threads} threads, ` +
              `${kib(s.stats.bytesEncoded)} encoded`);
          }
        },
      });
      const why = {
        until: 'the page signal is true',
        duration: `${secs(durationMs ?? 0)} have passed`,
        sessions: 'the sessions stopped by themselves',
        timeout: `timed out after ${secs(timeoutMs)}`,
      }[waited.reason];
      progress(`${why}; stopping the sessions`);
    }
    const results = await collectTraces(page, { outDir, module: v.module, timeoutMs: Math.max(timeoutMs / 2, 10000), jsProfile });
    const cwd = process.cwd();
    io.out('');
    io.out(`wasmtrace record: ${results.length} session(s) from ${url.split('?')[0]} in ${secs(Date.now() - t0)}`);
    for (const r of results) {
      io.out(summarizeSession(r, { top, cwd }).join('\n'));
    }
    const problems = [];
    for (const r of results) if (r.error) problems.push(`session '${r.name}' failed: ${r.error}`);
    if (waited.reason === 'timeout') {
      problems.push(v['wait-for'] !== undefined
        ? `the page signal (--wait-for ${v['wait-for']}) was not true after ${secs(timeoutMs)}: ` +
          'check the expression, or raise --timeout'
        : `the sessions did not stop by themselves in ${secs(timeoutMs)} (no durationMs in the config?): ` +
          'use --duration, --wait-for or --startup');
    }
    // The recording worked; the app's own threads may not have (a thread
    // that failed with EAGAIN, or started late): say so, without failing.
    const pool = consoleLines.find((l) => /thread pool is exhausted/i.test(l));
    if (pool) {
      io.err('');
      io.err(`wasmtrace record: note: the page logged that the pthread pool is exhausted (the app's own threads may be ` +
        `missing or late in the trace): ${adviceFor(pool)}`);
    }
    const written = results.filter((r) => r.file);
    if (written.length) {
      io.out('');
      io.out('open a trace with:');
      for (const r of written) {
        const f = shown(r.file, cwd);
        io.out(`  wasmtrace report ${f} --html ${f.replace(/(\.json)?(\.gz)?$/, '')}.html`);
      }
      io.out('  or load it in Perfetto UI (https://ui.perfetto.dev), Chrome DevTools (Performance panel), ' +
        'the Firefox Profiler or speedscope');
    }
    if (problems.length) {
      io.err('');
      for (const p of problems) io.err(`wasmtrace record: ${p}`);
      const ev = evidence(consoleLines);
      if (ev.length) io.err(`the page said:\n  ${ev.join('\n  ')}`);
      return 1;
    }
    return 0;
  } catch (e) {
    if (!(e instanceof WasmtraceError)) throw e;
    if (e.code === 'busy' && poolLine) io.err(`wasmtrace record: the page's main thread is blocked: ${blockedByPool(poolLine)}`);
    else io.err(`wasmtrace record: ${e.message.replace(/^wasmtrace: /, '')}`);
    if (e.code === 'aborted' && page) {
      // What the sessions that had stopped before the abort recorded is
      // still on the VFS: write it.
      const results = await collectTraces(page, { outDir, module: v.module, timeoutMs: 10000 }).catch(() => []);
      const kept = results.filter((r) => r.file);
      if (kept.length) {
        io.out('');
        io.out(`wasmtrace record: ${kept.length} trace(s) of sessions that stopped before the abort`);
        for (const r of kept) io.out(summarizeSession(r, { top, cwd: process.cwd() }).join('\n'));
      }
    }
    const ev = evidence(consoleLines);
    const pool = poolLine ?? ev.find((l) => /thread pool is exhausted|pthread pool/i.test(l));
    if (pool && e.code !== 'no-sessions' && !(e.code === 'busy' && poolLine) && !(e.code === 'load' && poolLine)) {
      io.err(`what to do: ${adviceFor(pool)}`);
    }
    if (failed.length) io.err(`requests that failed: ${failed.join(', ')}`);
    if (ev.length) io.err(`the page said:\n  ${ev.join('\n  ')}`);
    return 1;
  } finally {
    await browser?.close().catch(() => {});
    await server?.close();
  }
}

/**
 * record --repeat N: N recordings of the page, each in a fresh browser,
 * into <out>/run-01 ... run-N; a progress line per run and one summary of
 * the spread per session. Stops at the first run that fails (its output
 * is shown; the runs before it stay on disk).
 */
async function recordRepeat(positionals, v, io) {
  const n = Number(v.repeat);
  if (!Number.isInteger(n) || n < 1 || n > 1000) throw new UsageError(`record: --repeat ${v.repeat}: give a whole number of runs from 1 to 1000`);
  const outDir = resolve(v.out ?? 'wasmtrace-traces');
  const width = String(n).length < 2 ? 2 : String(n).length;
  const perSession = new Map(); // name -> [{ busyMs, samples }]
  const t0 = Date.now();
  for (let i = 1; i <= n; i++) {
    const dir = join(outDir, `run-${String(i).padStart(width, '0')}`);
    const lines = [];
    const status = await record(positionals, { ...v, out: dir, quiet: true }, { out: (l) => lines.push(l), err: (l) => lines.push(l) });
    if (status !== 0) {
      for (const l of lines) io.err(l);
      io.err(`wasmtrace record: run ${i} of ${n} failed (above); ${i - 1} run(s) before it are in ${shown(outDir, process.cwd())}`);
      return status;
    }
    const got = [];
    for (const f of (existsSync(dir) ? readdirSync(dir) : []).filter((x) => /\.(json|folded)(\.gz)?$/.test(x))) {
      try {
        const p = readProfile(readFileSync(join(dir, f)));
        const name = p.session?.session ?? f;
        // The app's threads: the JS profile's are a second view of them.
        const own = p.threads.filter((t) => !isJsProfileThread(t.name));
        const busy = own.reduce((a, t) => a + threadTotals(t).busy, 0);
        const samples = own.reduce((a, t) => a + t.samples.length, 0);
        const busyMs = p.intervalUs ? (busy * p.intervalUs) / 1000 : busy;
        if (!perSession.has(name)) perSession.set(name, []);
        perSession.get(name).push({ busyMs, samples });
        got.push(`'${printable(name)}' ${samples} samples, busy ${busyMs.toFixed(0)} ms`);
      } catch (e) {
        got.push(`${f}: cannot read it back (${e.message})`);
      }
    }
    if (!v.quiet) io.err(`wasmtrace record: run ${i}/${n} in ${secs(Date.now() - t0)}: ${got.join('; ') || 'no traces'}`);
  }
  io.out(`wasmtrace record: ${n} runs of ${positionals[0]} in ${secs(Date.now() - t0)}, traces in ${shown(outDir, process.cwd())}/run-*`);
  for (const [name, runs] of perSession) {
    const busy = runs.map((r) => r.busyMs).sort((a, b) => a - b);
    const med = busy[Math.floor((busy.length - 1) / 2)];
    const spread = med > 0 ? (100 * (busy.at(-1) - busy[0])) / med : 0;
    io.out(`  session '${printable(name)}': ${runs.length} traces; busy time (all threads) median ${med.toFixed(0)} ms, ` +
      `range ${busy[0].toFixed(0)} – ${busy.at(-1).toFixed(0)} ms (spread ${spread.toFixed(1)} % of the median)`);
  }
  // Runs left from an earlier, longer recording would be read by diff too.
  const stale = readdirSync(outDir).filter((d) => /^run-\d+$/.test(d) && Number(d.slice(4)) > n);
  if (stale.length) io.out(`  note: ${shown(outDir, process.cwd())} also holds ${stale.join(', ')} from an earlier recording: wasmtrace diff would read them too`);
  io.out('');
  io.out(`compare with another build's runs: wasmtrace diff <its runs> ${shown(outDir, process.cwd())}${perSession.size > 1 ? ' --session <name>' : ''}`);
  return 0;
}

function report(positionals, v, io) {
  if (positionals.length !== 1) throw new UsageError('report: give one trace file');
  const file = positionals[0];
  if (!existsSync(file)) throw new UsageError(`report: no file '${printable(file)}'`);
  // Never write over the trace read (through any link).
  const input = identities([file]);
  for (const o of ['html', 'folded']) {
    if (v[o] !== undefined && isOneOf(v[o], input)) throw new UsageError(`report: --${o}: '${printable(v[o])}' is the trace read: it is never overwritten`);
  }
  let profile;
  try {
    profile = readProfile(readFileSync(file), { format: v.format });
  } catch (e) {
    // Bad input, as every command says it: one line, exit status 2.
    io.err(`wasmtrace report: cannot read ${printable(file)}: ${String(e.message).split('\n')[0]}`);
    return 2;
  }
  const top = v.top !== undefined ? Number(v.top) : 10;
  if (v.heap) {
    let view;
    try {
      view = heapView(profile, { wrappers: v['alloc-wrapper'] ?? [] });
    } catch (e) {
      io.err(`wasmtrace report: ${printable(file)}: ${String(e.message).split('\n')[0]}`);
      return 2;
    }
    io.out(textHeapReport(view, { top, title: `wasmtrace report --heap: ${file}` }));
    if (v.folded) {
      writeFileSync(v.folded, foldedHeap(view, 'peak'));
      io.out('');
      io.out(`live at the peak as folded stacks (bytes): ${v.folded} (opens in speedscope; flamegraph.pl --countname=bytes)`);
    }
    return 0;
  }
  if (v.folded) throw new UsageError('report: --folded goes with --heap (a CPU trace in folded form: record with "format": "folded")');
  if (v['alloc-wrapper']) throw new UsageError('report: --alloc-wrapper goes with --heap');
  io.out(textReport(profile, { top, thread: v.thread, title: `wasmtrace report: ${file}` }));
  const notes = limitNotes(profile.stats);
  if (notes.length) {
    io.out('');
    for (const note of notes) io.out(`limit: ${note}`);
  }
  if (v.html) {
    writeFileSync(v.html, htmlReport(profile, { title: `wasmtrace report: ${basename(file)}`, file }));
    io.out('');
    io.out(`flame graphs: ${v.html} (open it in a browser; it works offline)`);
  }
  return 0;
}

// convert's errors are the input's: one line, exit status 2 (issue 27).
async function convert(positionals, v, io) {
  if (positionals.length !== 1) throw new UsageError('convert: give one trace file');
  const to = v.to ?? '';
  if (to !== 'pprof') throw new UsageError(to ? `convert: cannot convert to '${to}' (formats: pprof)` : 'convert: say what to: --to pprof');
  const file = positionals[0];
  if (!existsSync(file) || !statSync(file).isFile()) throw new UsageError(`convert: no file '${file}'`);
  const out = v.out ?? `${file.replace(/\.gz$/, '').replace(/\.(json|folded|txt)$/, '')}${v.heap ? '.heap' : ''}.pb.gz`;
  if (resolve(out) === resolve(file) || isOneOf(out, identities([file]))) {
    throw new UsageError(`convert: the output would overwrite the trace '${printable(file)}' (the same file, or a link to it): give --out`);
  }
  const { toPprof } = await import('./pprof.mjs'); // pprof-format: only convert needs it
  let bytes, profile;
  try {
    profile = readProfile(readFileSync(file), { format: v.format });
    bytes = toPprof(profile, { kind: v.heap ? 'heap' : 'cpu', thread: v.thread });
  } catch (e) {
    io.err(`wasmtrace convert: cannot convert ${file}: ${String(e.message || e).split('\n')[0]}`);
    return 2;
  }
  writeFileSync(out, bytes);
  const second = v.thread === undefined && !v.heap ? profile.threads.filter((t) => isJsProfileThread(t.name)).map((t) => t.name) : [];
  const what = v.heap ? 'heap profile (alloc_space, inuse_space, peak_space)' : `CPU profile of ${v.thread !== undefined ? `thread '${printable(v.thread)}'` : `${profile.threads.length - second.length} threads`}`;
  io.out(`pprof ${what}: ${out} (${bytes.length} bytes)`);
  if (second.length) {
    io.out(`  left out: ${second.map((n) => `'${printable(n)}'`).join(', ')}, the browser's view of the same threads (its time would count twice); --thread '${printable(second[0])}' converts one`);
  }
  io.out(`open it: go tool pprof -http=: ${out}   or drop it on speedscope`);
  return 0;
}

// flags and deps: the native library of an installed package (lib/native.mjs).
async function flags(positionals, v, io) {
  if (positionals.length) throw new UsageError(`flags: unexpected '${positionals[0]}' (wasmtrace flags --cflags | --ldflags [--heap] [--formats] [--with-server] [--build])`);
  if (!v.cflags && !v.ldflags && !v.build) throw new UsageError('flags: say which: --cflags, --ldflags (or --build)');
  const native = await import('./native.mjs');
  try {
    const note = native.emccVersionNote(native.emccVersion());
    if (note) io.err(`wasmtrace flags: note: ${note}`);
    if (v.build) native.buildLibrary({ progress: (l) => io.err(`wasmtrace: ${l}`) });
    if (!v.cflags && !v.ldflags) {
      const { prefix } = native.libraryFlags();
      io.err(`wasmtrace: built: ${prefix} (wasmtrace flags --cflags / --ldflags print its flags)`);
      return 0;
    }
    const f = native.libraryFlags({ heap: !!v.heap, formats: !!v.formats, server: !!v['with-server'] });
    io.out([v.cflags ? f.cflags : '', v.ldflags ? f.ldflags : ''].filter(Boolean).join(' '));
    return 0;
  } catch (e) {
    if (!(e instanceof native.NativeError)) throw e;
    io.err(`wasmtrace flags: ${e.message}`);
    return 1;
  }
}

async function deps(positionals, v, io) {
  if (positionals.length) throw new UsageError(`deps: unexpected '${positionals[0]}'`);
  const native = await import('./native.mjs');
  try {
    const d = native.ensureDeps({ progress: (l) => io.err(`wasmtrace: ${l}`) });
    io.out(`cJSON: ${d.cjson}`);
    io.out(`zlib:  ${d.zlib}`);
    return 0;
  } catch (e) {
    if (!(e instanceof native.NativeError)) throw e;
    io.err(`wasmtrace deps: ${e.message}`);
    return 1;
  }
}

function diff(positionals, v, io) {
  let base = v.base ?? [], next = v.new ?? [];
  if (positionals.length === 2 && !base.length && !next.length) [base, next] = [[positionals[0]], [positionals[1]]];
  else if (positionals.length || !base.length || !next.length) {
    throw new UsageError('diff: give the base and the new traces: wasmtrace diff <base dir|file> <new dir|file>, or --base F... --new F...');
  }
  let res, sides;
  const notes = [];
  try {
    const threshold = parseThreshold(v.threshold ?? '2%,1ms');
    const files = [['base', base], ['new', next]].map(([side, paths]) => [side, sideFiles(paths, side)]);
    // Never write over a trace read (through any link).
    const inputs = identities(files.flatMap(([, f]) => f));
    for (const o of ['markdown', 'json', 'html']) {
      if (v[o] !== undefined && isOneOf(v[o], inputs)) throw new DiffError(`--${o}: '${printable(v[o])}' is one of the traces read: it is never overwritten`);
    }
    sides = files.map(([side, f]) => readSide(f, side, { session: v.session, notes }));
    const minShare = v['min-share'] !== undefined ? Number(String(v['min-share']).replace(/%$/, '')) : 0.5;
    if (!(minShare >= 0 && minShare <= 100)) throw new DiffError(`--min-share: '${v['min-share']}' is not a percentage from 0 to 100`);
    res = compare(sides[0], sides[1], { threshold, minShare, paired: !!v.paired });
  } catch (e) {
    if (!(e instanceof DiffError)) throw e;
    io.err(`wasmtrace diff: ${e.message}`);
    return 2;
  }
  const top = v.top !== undefined ? Number(v.top) : 20;
  for (const n of notes) io.err(`wasmtrace diff: ${n}`);
  io.out(textDiff(res, { top, title: `wasmtrace diff: ${res.runs.base} base vs ${res.runs.new} new` }));
  if (v.markdown) writeFileSync(v.markdown, `${markdownDiff(res, { top })}\n`);
  if (v.json) writeFileSync(v.json, `${jsonDiff(res)}\n`);
  if (v.html) writeFileSync(v.html, htmlDiff(res, sides[1], { title: `wasmtrace diff: ${res.runs.base} base vs ${res.runs.new} new` }));
  return diffStatus(res, { failOnUndecided: v['fail-on-undecided'] });
}

// The diagnostic server's commands (lib/remote.mjs; imported here only:
// it needs `ws`, and --help, --version and report work without node_modules).
async function remote(command, rest, v, io) {
  let mod;
  try {
    mod = await import('./remote.mjs');
  } catch (e) {
    throw new Error(`${command} needs the WebSocket library ws (npm install): ${e.message.split('\n')[0]}`);
  }
  const { collectCommand, onceCommand, pagesCommand, resumeCommand, serveCommand } = mod;
  const collectOpts = () => {
    const config = buildConfig(v) ?? { sessions: [{}] };
    if (v.config === undefined) config.sessions[0].name = 'remote'; // presets only
    // The tool decides when to stop, unless --startup asked for a durationMs.
    if (v.startup === undefined) for (const s of config.sessions) delete s.durationMs;
    const durationMs = v.duration !== undefined ? parseDuration(v.duration, '--duration') : undefined;
    return { config, durationMs, summarize: (r) => summarizeSession(r, { top: v.top !== undefined ? Number(v.top) : 5 }) };
  };
  if (command === 'serve' && v.once) {
    if (v.duration === undefined && v.startup === undefined) throw new UsageError('serve --once: give --duration (or --startup)');
    return onceCommand(v, io, collectOpts());
  }
  if (command === 'serve') {
    const router = await serveCommand(v, io);
    await new Promise((r) => process.once('SIGINT', r));
    await router.close();
    return 0;
  }
  if (command === 'pages') return pagesCommand(v, io);
  if (command === 'resume') return resumeCommand(rest, v, io);
  return collectCommand(rest, v, io, collectOpts());
}

const OPTIONS = {
  // serve, pages, collect, resume
  host: { type: 'string' },
  token: { type: 'string' },
  'allow-origin': { type: 'string', multiple: true },
  server: { type: 'string' },
  first: { type: 'boolean' },
  resume: { type: 'boolean' },
  once: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean' },
  // record
  out: { type: 'string', short: 'o' },
  page: { type: 'string' },
  config: { type: 'string' },
  startup: { type: 'string' },
  interval: { type: 'string' },
  format: { type: 'string' },
  'wait-for': { type: 'string' },
  duration: { type: 'string' },
  timeout: { type: 'string' },
  'load-timeout': { type: 'string' },
  module: { type: 'string' },
  chromium: { type: 'string' },
  browser: { type: 'string' },
  'browser-path': { type: 'string' },
  'browser-arg': { type: 'string', multiple: true },
  port: { type: 'string' },
  'no-js-profile': { type: 'boolean' },
  quiet: { type: 'boolean', short: 'q' },
  top: { type: 'string' },
  // report
  html: { type: 'string' },
  thread: { type: 'string' },
  heap: { type: 'boolean' },
  folded: { type: 'string' },
  'alloc-wrapper': { type: 'string', multiple: true },
  // diff
  base: { type: 'string', multiple: true },
  new: { type: 'string', multiple: true },
  threshold: { type: 'string' },
  markdown: { type: 'string' },
  json: { type: 'string' },
  'fail-on-undecided': { type: 'boolean' },
  session: { type: 'string' },
  repeat: { type: 'string' },
  'min-share': { type: 'string' },
  paired: { type: 'boolean' },
  // convert
  to: { type: 'string' },
  // flags
  cflags: { type: 'boolean' },
  ldflags: { type: 'boolean' },
  build: { type: 'boolean' },
  'with-server': { type: 'boolean' },
  formats: { type: 'boolean' },
};

// Each command's options (util.parseArgs, strict, per command: an option
// of another command, or of none, is refused with exit 2, naming it and
// the command), its usage lines, its section of HELP and an example.
// util.parseArgs (Node's own) rather than a CLI library: it was already the
// parser, it is strict, and the package adds no dependency for it.
const PRESETS = ['config', 'startup', 'interval', 'format'];
const REMOTE = ['server', 'token'];
export const COMMANDS = {
  record: {
    options: ['out', 'page', ...PRESETS, 'wait-for', 'duration', 'timeout', 'load-timeout', 'module', 'chromium', 'browser',
      'browser-path', 'browser-arg', 'port', 'no-js-profile', 'quiet', 'top', 'repeat'],
    section: 'record', example: 'wasmtrace record build/web --startup 5s --out traces',
  },
  report: { options: ['html', 'top', 'thread', 'heap', 'folded', 'alloc-wrapper', 'format'], section: 'report',
    example: 'wasmtrace report traces/startup.json.gz --top 20 --html startup.html' },
  diff: { options: ['base', 'new', 'threshold', 'top', 'markdown', 'json', 'html', 'fail-on-undecided', 'min-share', 'session', 'paired'],
    section: 'diff', example: 'wasmtrace diff base-runs/ new-runs/ --markdown diff.md' },
  convert: { options: ['to', 'out', 'heap', 'thread', 'format'], section: 'convert',
    example: 'wasmtrace convert traces/startup.json.gz --to pprof -o startup.pb.gz' },
  flags: { options: ['cflags', 'ldflags', 'heap', 'formats', 'with-server', 'build'], section: 'flags',
    example: 'emcc app.c -o app.js -pthread $(npx wasmtrace flags --cflags) $(npx wasmtrace flags --ldflags)' },
  deps: { options: [], section: 'deps', example: 'wasmtrace deps' },
  serve: { options: ['port', 'host', 'token', 'allow-origin', 'once', 'duration', ...PRESETS, 'out', 'top', 'quiet'],
    section: 'diagnostic server', example: 'wasmtrace serve --port 9777' },
  pages: { options: [...REMOTE], section: 'diagnostic server', example: 'wasmtrace pages' },
  collect: { options: ['first', 'resume', 'duration', ...PRESETS, 'out', 'top', 'quiet', ...REMOTE],
    section: 'diagnostic server', example: 'wasmtrace collect --first --duration 10s -o traces' },
  resume: { options: ['first', ...REMOTE], section: 'diagnostic server', example: 'wasmtrace resume --first' },
};
const COMMAND_NAMES = Object.keys(COMMANDS).join(', ');

// HELP's sections: "record: ..." up to the next section's first line.
function helpSection(name) {
  const lines = HELP.split('\n');
  const head = (l) => /^(record|report|diff|convert|flags|deps): /.test(l) || /^diagnostic server /.test(l) || /^Durations: /.test(l);
  const at = lines.findIndex((l) => l.startsWith(`${name}: `) || l.startsWith(`${name} (`) || (name === 'diagnostic server' && l.startsWith(name)));
  if (at < 0) return '';
  let end = at + 1;
  while (end < lines.length && !head(lines[end])) end++;
  return lines.slice(at, end).join('\n').trimEnd();
}

/** `wasmtrace help <command>` and `wasmtrace <command> --help`: its usage, its options, an example. */
export function commandHelp(name) {
  const c = COMMANDS[name];
  const usage = HELP.split('\n').filter((l) => new RegExp(`^ {2}wasmtrace ${name}\\b`).test(l));
  const durations = c.options.some((o) => ['startup', 'interval', 'duration', 'timeout', 'load-timeout'].includes(o));
  return `usage:\n${usage.join('\n')}\n\n${helpSection(c.section)}\n\nexample:\n  ${c.example}\n` +
    (durations ? `\n${helpSection('Durations')}\n` : '') +
    `\nwasmtrace --help lists every command; docs/REFERENCE.md has every option, docs/GUIDE.md how to use them.`;
}

// Values that must be numbers: one line naming the option and the value.
function checkValues(v) {
  const whole = (name, lo, hi) => {
    if (v[name] === undefined) return;
    const n = /^\d{1,7}$/.test(v[name]) ? Number(v[name]) : NaN;
    if (!(n >= lo && n <= hi)) throw new UsageError(`--${name}: '${printable(v[name])}' is not a whole number from ${lo} to ${hi}`);
  };
  whole('top', 1, 100000);
  whole('port', 0, 65535);
  whole('repeat', 1, 1000);
  if (v['min-share'] !== undefined && !/^\d{1,3}(\.\d{1,6})?%?$/.test(v['min-share'])) {
    throw new UsageError(`--min-share: '${printable(v['min-share'])}' is not a percentage from 0 to 100`);
  }
}

/**
 * Runs the command line `argv` (without node and script). Resolves with the
 * exit status. io.out / io.err take one line each (default: the console).
 */
export async function main(argv, io0 = { out: (l) => console.log(l), err: (l) => console.error(l) }) {
  // Nothing the CLI prints may drive the terminal: every line goes out with
  // its control characters escaped (printable), but for its line breaks and
  // tabs. Each message escapes the names it prints already; this is the
  // net under a message that forgot (a value echoed in an error).
  const safe = (write) => (l) => write(String(l).split('\n').map((x) => x.split('\t').map(printable).join('\t')).join('\n'));
  const io = { ...io0, out: safe(io0.out), err: safe(io0.err) };
  const usage = (message, command) => {
    io.err(`wasmtrace${command ? ` ${command}` : ''}: ${message} (${command ? `wasmtrace help ${command}` : 'wasmtrace --help'})`);
    return 2;
  };
  const [first, ...after] = argv;
  // The command first; only --help, -h and --version come without one.
  if (first === undefined || first === '--help' || first === '-h') {
    io.out(HELP);
    return first === undefined ? 2 : 0;
  }
  if (first === '--version') {
    if (after.length) return usage(`--version takes nothing after it ('${printable(after[0])}')`);
    io.out(VERSION);
    return 0;
  }
  if (first === 'help') {
    if (after.length === 0) {
      io.out(HELP);
      return 0;
    }
    if (after.length > 1 || !Object.hasOwn(COMMANDS, after[0])) {
      return usage(`help: '${printable(after.join(' '))}' is not a command (${COMMAND_NAMES})`);
    }
    io.out(commandHelp(after[0]));
    return 0;
  }
  if (!Object.hasOwn(COMMANDS, first)) {
    return usage(first.startsWith('-')
      ? `give the command first, then its options ('${printable(first)}' came first; commands: ${COMMAND_NAMES})`
      : `unknown command '${printable(first)}' (${COMMAND_NAMES})`);
  }
  const command = first;
  const allowed = [...COMMANDS[command].options, 'help'];
  const options = Object.fromEntries(allowed.map((o) => [o, OPTIONS[o]]));
  let parsed;
  try {
    parsed = parseArgs({ args: after, options, allowPositionals: true, strict: true });
  } catch (e) {
    // The option, named; if another command takes it, which one.
    const m = /'(-{1,2}[^'\s]+)'/.exec(e.message);
    const flag = m ? m[1] : null;
    const name = flag?.replace(/^-+/, '').replace(/=.*/, '');
    const long = name && (Object.hasOwn(OPTIONS, name) ? name : Object.keys(OPTIONS).find((k) => OPTIONS[k].short === name));
    if (e.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && flag) {
      const owners = long ? Object.keys(COMMANDS).filter((c) => COMMANDS[c].options.includes(long)) : [];
      return usage(owners.length
        ? `--${long} is an option of ${owners.join(', ')}, not of ${command}`
        : `unknown option '${printable(flag)}'`, command);
    }
    return usage(printable(String(e.message).split('\n')[0]), command);
  }
  const { values: v, positionals: rest } = parsed;
  if (v.help) {
    io.out(commandHelp(command));
    return 0;
  }
  try {
    checkValues(v);
  } catch (e) {
    return usage(e.message, command);
  }
  try {
    if (command === 'record') return v.repeat !== undefined ? await recordRepeat(rest, v, io) : await record(rest, v, io);
    if (command === 'report') return report(rest, v, io);
    if (command === 'diff') return diff(rest, v, io);
    if (command === 'convert') return await convert(rest, v, io);
    if (command === 'flags') return await flags(rest, v, io);
    if (command === 'deps') return await deps(rest, v, io);
    return await remote(command, rest, v, io);
  } catch (e) {
    if (e instanceof UsageError) {
      io.err(`wasmtrace: ${e.message} (wasmtrace help ${command})`);
      return 2;
    }
    // One line, never a stack or a driver's call log. diff's exit status 1
    // is its verdict (slower) only: anything else that fails there is 2.
    io.err(`wasmtrace: ${printable(String(e.message || e).split('\n')[0].replace(/^wasmtrace: /, ''))}`);
    return command === 'diff' ? 2 : 1;
  }
}
