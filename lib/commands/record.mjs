// `wasmtrace record` (and --repeat): serve or open the app, record its
// sessions in a headless browser, write the traces, print the summary.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { readProfile, functionTable, threadTotals } from '../profile.mjs';
import { printable, wrapNote } from '../report.mjs';
import { isJsProfileThread, JS_THREAD_NAME } from '../jsprofile.mjs';
import { mergeJsFlags, TIERS, tierOptions } from '../tier.mjs';
import { recorderSummaries } from '../recorders.mjs';
import { serve } from '../serve.mjs';
import { BROWSERS, launch } from '../browser.mjs';
import { adviceFor, collectTraces, configure, waitForSessions, waitForWasmtrace, watchPage, WasmtraceError } from '../../js/playwright.mjs';
import { UsageError, parseDuration, buildConfig, kib, shown, secs, count } from './common.mjs';

// Lines the page printed that explain a failure (Emscripten's pool warning,
// wasmtrace's own messages, uncaught errors).
function evidence(consoleLines) {
  const wanted = /wasmtrace|pthread|thread pool|PTHREAD_POOL|abort|error|exception|SharedArrayBuffer/i;
  const seen = new Set();
  return consoleLines.filter((l) => wanted.test(l) && !/Failed to load resource/.test(l) && !seen.has(l) && seen.add(l)).slice(-8);
}


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
  // What the recorders beside the samples kept (lib/recorders.mjs).
  for (const line of recorderSummaries(p)) lines.push(`  ${printable(line)}`);
  if (r.jsProfile) {
    lines.push(r.jsProfile.samples
      ? `  ${JS_THREAD_NAME}: ${r.jsProfile.samples} samples of the page main thread's JS and wasm (the browser's JS Self-Profiling API)`
      : `  ${JS_THREAD_NAME}: none: ${printable(r.jsProfile.reason)}`);
    const ws = (r.jsProfile.workers ?? []).filter((w) => w.samples);
    if (ws.length) lines.push(`  workers (JS): ${ws.map((w) => `${printable(w.name)} ${w.samples}`).join(', ')} samples`);
    if (r.jsProfile.workersReason) lines.push(`  workers (JS): ${printable(r.jsProfile.workersReason)}`);
  }
  if (r.stampError) lines.push(`  not stamped with how it was recorded (diff takes it as the default tier): ${printable(r.stampError)}`);
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

export async function record(positionals, v, io) {
  if (positionals.length !== 1) throw new UsageError('record: give one build directory, HTML file or URL');
  const { browserName, executablePath } = recordBrowser(v);
  const target = resolveTarget(positionals[0], v.page);
  if (target.dir && !existsSync(resolve(target.dir, target.page.split('?')[0]))) {
    throw new UsageError(`record: no ${target.page} in ${target.dir} (use --page to name the app's page)`);
  }
  const config = buildConfig(v);
  const tier = v.tier ?? 'default';
  if (!TIERS.includes(tier)) throw new UsageError(`record: --tier '${printable(tier)}': give ${TIERS.join(' or ')}`);
  const tierOpts = tierOptions(tier, browserName);
  const browserArgs = mergeJsFlags([...tierOpts.args, ...(v['browser-arg'] ?? [])]);
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
      browser = await launch({ browser: browserName, executablePath, logPageErrors: false, args: browserArgs, prefs: tierOpts.prefs });
    } catch (e) {
      if (e.code !== 'ERR_MODULE_NOT_FOUND' || !e.driver) throw e;
      throw new Error(`record needs the browser driver ${e.driver} (npm install): ${e.cause}`);
    }
    const browserVersion = browser.version();
    if (!v.quiet) progress(`browser: ${browserVersion}${tier === 'default' ? '' : `, wasm tier: ${tier}`}`);
    // Said in every trace's stats record: diff compares like with like.
    // (args: all the browser was given past wasmtrace's own, --browser-arg included.)
    const recordedWith = { tier, browser: browserName, version: browserVersion, args: browserArgs, prefs: tierOpts.prefs };
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
    const results = await collectTraces(page, { outDir, module: v.module, timeoutMs: Math.max(timeoutMs / 2, 10000), jsProfile, recordedWith });
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
    // An app linked with the page files of before (js/wasmtrace_post.js
    // says which is missing, and how to relink): its traces lack what that
    // file records.
    const relink = consoleLines.find((l) => /wasmtrace: this app was linked without /.test(l));
    if (relink) {
      io.err('');
      io.err(`wasmtrace record: note: ${printable(relink.replace(/^\[\w+\] wasmtrace: /, ''))}`);
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
export async function recordRepeat(positionals, v, io) {
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
