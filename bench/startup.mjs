// What wasmtrace adds to a page's startup (issue 42): navigation -> main()
// of a small two-pthread app (bench/startup/app.c, -sPTHREAD_POOL_SIZE=2),
// in rounds that rotate four loads so that drift in the machine's load is
// shared:
//   plain     the app not linked with wasmtrace (bench/startup_plain)
//   plain_fs  the same with Emscripten's file system (-sFORCE_FILESYSTEM=1),
//             which wasmtrace needs and most apps already have (stdio)
//   linked    the app linked the guide's way, no config (bench/startup_linked)
//   session   the same binary with a startup session (globalThis.wasmtraceConfig)
// each a fresh page (the HTTP cache warm after a first, discarded round).
// Per round the paired differences linked - plain and session - plain; the
// figures are their medians with a bootstrap 95 % interval:
//   startup.linked_no_session_ms        Chromium, linked - plain (goal <= 1)
//   startup.added_ms.chromium           session - plain (goal <= 5)
//   startup.added_ms.firefox            the same in Firefox ESR
//   startup.plain_main_ms.<browser>     the plain app's navigation -> main()
//   ...fs_app                           the same differences against plain_fs:
//                                       what an app with a file system pays
// A session load counts only if its session was running or stopped by then
// (the page says so), so that a session that never started cannot look free.
//   bash scripts/build.sh wasm && node bench/startup.mjs
//   WT_STARTUP_ROUNDS=N (default 20)   WT_STARTUP_WRITE=0 (print only)
//   WT_STARTUP_BROWSERS=chromium (a comma list; default both)
//   WASMTRACE_WASM_BUILD=<tree> (default build/wasm: another build's apps)
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch } from '../lib/browser.mjs';
import { serve } from '../lib/serve.mjs';
import { benchTree, figure, median, replaceSection, stampSections, writeFigures } from './figures.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const ROUNDS = Number(process.env.WT_STARTUP_ROUNDS || 20);
export const STARTUP_BROWSERS = ['chromium', 'firefox'];
const KINDS = ['plain', 'plain_fs', 'linked', 'session'];
const CONFIG = { sessions: [{ name: 'startup', durationMs: 3000 }] };

async function load(browser, server, kind) {
  const page = await browser.newPage();
  try {
    if (kind === 'session') await page.addInitScript((c) => { globalThis.wasmtraceConfig = c; }, CONFIG);
    await page.goto(`${server.url}bench/startup_${kind === 'session' ? 'linked' : kind}/index.html`);
    await page.waitForFunction('self.appDone !== undefined', null, { timeout: 60000, polling: 10 });
    return await page.evaluate(() => {
      let state = null;
      try {
        const s = self.Module.wasmtrace && self.Module.wasmtrace.getStartupSessions();
        state = s && s.length ? s[0].state : null;
      } catch {
        state = null;
      }
      return { mainMs: self.mainAtMs, state };
    });
  } finally {
    await page.close();
  }
}

export async function startupBench({ wasm = benchTree, rounds = ROUNDS, browsers = STARTUP_BROWSERS, log = () => {} } = {}) {
  const server = await serve(wasm);
  const res = {};
  try {
    for (const b of browsers) {
      const browser = await launch({ browser: b });
      const runs = Object.fromEntries(KINDS.map((k) => [k, []]));
      try {
        for (let r = -1; r < rounds; r++) {
          // Rotate the order, round by round.
          const order = KINDS.map((_, i) => KINDS[(i + Math.max(r, 0)) % KINDS.length]);
          const got = {};
          for (const kind of order) got[kind] = await load(browser, server, kind);
          if (got.session.state !== 'running' && got.session.state !== 'stopped') {
            throw new Error(`${b}: the startup session was ${got.session.state} at main()'s end`);
          }
          if (r < 0) continue; // the first round warms the HTTP cache
          for (const kind of KINDS) runs[kind].push(got[kind].mainMs);
          log(`startup ${b}: round ${r + 1}/${rounds}: ${KINDS.map((k) => `${k} ${got[k].mainMs.toFixed(1)}`).join(', ')} ms`);
        }
      } finally {
        await browser.close();
      }
      res[b] = runs;
    }
  } finally {
    await server.close();
  }
  return res;
}

export function startupFigures(res) {
  const out = [];
  for (const [b, runs] of Object.entries(res)) {
    const linked = runs.linked.map((x, i) => x - runs.plain[i]);
    const added = runs.session.map((x, i) => x - runs.plain[i]);
    const linkedFs = runs.linked.map((x, i) => x - runs.plain_fs[i]);
    const addedFs = runs.session.map((x, i) => x - runs.plain_fs[i]);
    const suffix = b === 'chromium' ? '' : `.${b}`;
    out.push(figure(`startup.linked_no_session_ms${suffix}`, 'ms', linked, { target: '<= 1' }));
    out.push(figure(`startup.linked_no_session_ms.fs_app${suffix}`, 'ms', linkedFs));
    out.push(figure(`startup.added_ms.${b}`, 'ms', added, { target: '<= 5' }));
    out.push(figure(`startup.added_ms.fs_app.${b}`, 'ms', addedFs));
    out.push(figure(`startup.plain_main_ms.${b}`, 'ms', runs.plain));
  }
  return out;
}

export function startupSection(res, command) {
  const f = (xs) => median(xs).toFixed(1);
  const d = (a, b) => f(a.map((x, i) => x - b[i]));
  const rows = Object.entries(res).map(([b, runs]) =>
    `| ${b} | ${f(runs.plain)} | ${f(runs.plain_fs)} | ${f(runs.linked)} | ${f(runs.session)} | ${d(runs.linked, runs.plain)} | ${d(runs.session, runs.plain)} | ${d(runs.linked, runs.plain_fs)} | ${d(runs.session, runs.plain_fs)} |`);
  const figs = startupFigures(res).map((x) => `\`${x.name}\` ${x.value.toFixed(1)}${x.ci95 ? ` [${x.ci95[0].toFixed(1)}, ${x.ci95[1].toFixed(1)}]` : ''}`);
  const n = Object.values(res)[0]?.plain.length ?? 0;
  return `## 18. What wasmtrace adds to startup

\`${command}\`: bench/startup/app.c (two pthreads, \`-sPTHREAD_POOL_SIZE=2\`), navigation → \`main()\`, ${n} rounds per
browser rotating four loads (a fresh page each): the app not linked with wasmtrace, the same with Emscripten's file
system (\`-sFORCE_FILESYSTEM=1\`: wasmtrace needs one for its traces, and an app that uses stdio or files has one
already), linked the guide's way with no config, and the same binary with a startup session. Medians (ms); the
differences are paired per round ("fs": against the app with a file system).

| browser | not linked | not linked, fs | linked | linked + session | linked − not linked | session − not linked | linked − fs | session − fs |
|---|---|---|---|---|---|---|---|---|
${rows.join('\n')}

Figures (median [95 % CI]): ${figs.join('; ')}.
`;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const browsers = (process.env.WT_STARTUP_BROWSERS || STARTUP_BROWSERS.join(',')).split(',');
  const unknown = browsers.filter((b) => !STARTUP_BROWSERS.includes(b));
  if (unknown.length) {
    console.error(`bench/startup.mjs: WT_STARTUP_BROWSERS: '${unknown[0]}' is not one of ${STARTUP_BROWSERS.join(', ')}`);
    process.exit(2);
  }
  const res = await startupBench({ browsers, log: (m) => console.log(m) });
  const text = startupSection(res, 'node bench/startup.mjs');
  console.log(text);
  if (process.env.WT_STARTUP_WRITE !== '0') {
    writeFigures(startupFigures(res));
    replaceSection('## 18. What wasmtrace adds to startup', stampSections(text));
  }
}
