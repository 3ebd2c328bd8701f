// Hooks on call-dense real code (issue 28): the Lua 5.4 interpreter
// (Debian's sources, fetched into .deps/ with apt-get source the first
// time) running bench/interp/lua_bench.c's script, built the same way
// (-O2, every function instrumented with -finstrument-functions) and linked
//   plain   with this tree's library, no hooks (the interpreter's own time)
//   today   with this tree's library
//   inlined with this tree's library, instrumented after inlining (its
//           default, wasmtrace_instrument() without FULL): inlined
//           functions have no hooks of their own
//   old     with the library of commit 551744b (git archive of this
//           repository's history into build/interp/src-551744b; left out,
//           with a line saying so, where the history is not there)
// Each round runs every build once, in a rotating order, under Node (the
// same V8 as Chromium) with a wasmtrace session sampling at 1 kHz; a run is
// 12 repetitions of the script in a fresh interpreter state: the first runs
// mostly on V8's baseline tier (Liftoff, as an app's startup does); the
// fastest of the other 11 is the steady time (this machine's speed varies
// by up to a factor of two from one second to the next, bench/diff.mjs:
// the minimum is the figure least moved by it).
//   interp.lua.plain_ms                the plain build's steady time
//   interp.lua.<build>.overhead_pct    instrumented / plain - 1, per round
//   interp.lua.<build>.first_overhead_pct  the same for the first repetition
//   interp.lua.today_vs_old_pct        today / old - 1, per round (steady)
//   interp.lua.today_vs_old.first_pct  the same for the first repetition
// each the median over rounds with a bootstrap 95 % interval.
//   node bench/interp.mjs      WT_INTERP_ROUNDS=N (default 9)   WT_INTERP_WRITE=0 (print only)
//   WT_INTERP_SESSION=0: no session (the hooks alone, no sampler running)
//   WT_INTERP_BASE=<commit> (default 551744b)
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureDeps } from '../lib/native.mjs';
import { figure, median, replaceSection, stampSections, writeFigures } from './figures.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const thisFile = fileURLToPath(import.meta.url);
const ROUNDS = Number(process.env.WT_INTERP_ROUNDS || 9);
const BASE = process.env.WT_INTERP_BASE || '551744b';
const REPS = 12;
const SESSION = JSON.stringify({ name: 'interp', output: '/tmp/interp.json.gz', sampling: { intervalUs: 1000 } });

// Debian's emcc runs its JS tools with the system's Node modules (scripts/build.sh sets the same).
const env = { ...process.env, NODE_PATH: process.env.NODE_PATH || '/usr/share/nodejs' };
const sh = (cmd, args, opts = {}) => execFileSync(cmd, args, { encoding: 'utf8', maxBuffer: 64 << 20, env, ...opts });

/** The unpacked Lua 5.4 sources: .deps/lua5.4-* (fetched when missing). */
export function luaDir(log = () => {}) {
  const deps = join(root, '.deps');
  const find = () => (existsSync(deps) ? readdirSync(deps).filter((d) => /^lua5\.4-[\d.]+$/.test(d)).map((d) => join(deps, d)) : [])
    .find((d) => existsSync(join(d, 'src/lapi.c')));
  let dir = find();
  if (!dir) {
    log('fetching the Lua 5.4 sources into .deps/ (apt-get source lua5.4)');
    mkdirSync(deps, { recursive: true });
    try {
      sh('apt-get', ['source', '-qq', 'lua5.4'], { cwd: deps, stdio: ['ignore', 'ignore', 'pipe'] });
    } catch (e) {
      throw new Error(`interp bench: 'apt-get source lua5.4' failed (needs a deb-src line and dpkg-dev): ${e.message.split('\n')[0]}`);
    }
    dir = find();
    if (!dir) throw new Error('interp bench: apt-get source lua5.4 left no .deps/lua5.4-*/src/lapi.c');
  }
  return dir;
}

/** The older tree, extracted from git history; null (and why) without it. */
function oldTree(build) {
  const dir = join(build, `src-${BASE}`);
  if (existsSync(join(dir, 'CMakeLists.txt'))) return { dir };
  try {
    mkdirSync(dir, { recursive: true });
    execFileSync('sh', ['-c', `git -C "${root}" archive "${BASE}" | tar -x -C "${dir}"`], { stdio: ['ignore', 'ignore', 'pipe'] });
    return { dir };
  } catch (e) {
    return { dir: null, why: `no commit ${BASE} in this checkout's history (${e.message.split('\n')[0]})` };
  }
}

/** Configures and builds one variant; returns its lua_bench.js. */
function buildVariant(build, name, source, mode, lua, log) {
  const dir = join(build, name);
  const js = join(dir, 'lua_bench.js');
  if (!existsSync(join(dir, 'CMakeCache.txt'))) {
    log(`configuring ${name} (${mode}, ${source === root ? 'this tree' : source})`);
    const defs = [`-DWT_SOURCE=${source}`, `-DLUA_DIR=${lua}`, `-DWT_MODE=${mode}`, '-DCMAKE_BUILD_TYPE=Release'];
    // An older tree looks only in its own .deps/: give it the sources this one uses.
    const { cjson, zlib } = ensureDeps({ progress: log });
    defs.push(`-DWASMTRACE_CJSON_DIR=${cjson}`, `-DWASMTRACE_ZLIB_DIR=${zlib}`);
    sh('emcmake', ['cmake', '-S', join(root, 'bench/interp'), '-B', dir, ...defs], { stdio: ['ignore', 'ignore', 'pipe'] });
  }
  log(`building ${name}`);
  try {
    sh('cmake', ['--build', dir, '-j2', '--target', 'lua_bench'], { stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (e) {
    const lines = `${e.stdout ?? ''}\n${e.stderr ?? ''}`.split('\n').filter((l) => /error/i.test(l));
    throw new Error(`interp bench: building ${name} failed:\n${lines.slice(0, 5).join('\n')}`);
  }
  return js;
}

function runOnce(js) {
  const session = process.env.WT_INTERP_SESSION === '0' ? [] : [SESSION];
  const out = sh('node', ['--no-experimental-fetch', js, String(REPS), ...session], { timeout: 300000 });
  const line = out.split('\n').find((l) => l.startsWith('{"ms"'));
  if (!line) throw new Error(`interp bench: ${js} printed no result: ${out.slice(-300)}`);
  const { ms, check } = JSON.parse(line);
  return { first: ms[0], steady: Math.min(...ms.slice(1)), check };
}

export async function interpBench({ rounds = ROUNDS, log = () => {} } = {}) {
  const build = join(root, 'build/interp');
  mkdirSync(build, { recursive: true });
  const lua = luaDir(log);
  const old = oldTree(build);
  const builds = {
    plain: buildVariant(build, 'plain', root, 'plain', lua, log),
    today: buildVariant(build, 'today', root, 'full', lua, log),
    inlined: buildVariant(build, 'inlined', root, 'inlined', lua, log),
  };
  if (old.dir) builds.old = buildVariant(build, 'old', old.dir, 'full', lua, log);
  else log(`the ${BASE} build is left out: ${old.why}`);
  const names = Object.keys(builds);
  const runs = Object.fromEntries(names.map((n) => [n, []]));
  const loadBefore = loadavg();
  for (let r = 0; r < rounds; r++) {
    for (let i = 0; i < names.length; i++) {
      const n = names[(i + r) % names.length];
      runs[n].push(runOnce(builds[n]));
    }
    log(`round ${r + 1}/${rounds}: ${names.map((n) => `${n} ${runs[n].at(-1).steady.toFixed(0)} ms (first ${runs[n].at(-1).first.toFixed(0)})`).join(', ')}`);
  }
  const checks = new Set(names.flatMap((n) => runs[n].map((x) => x.check)));
  if (checks.size !== 1) throw new Error(`interp bench: the builds computed different results (${[...checks].join(', ')})`);
  return { rounds, names, runs, base: BASE, oldWhy: old.why ?? null, loadBefore, loadAfter: loadavg() };
}

const ratioPct = (a, b, k) => a.map((x, i) => 100 * (x[k] / b[i][k] - 1));

export function interpFigures(res) {
  const { runs } = res;
  const out = [figure('interp.lua.plain_ms', 'ms', runs.plain.map((x) => x.steady))];
  for (const n of res.names.filter((x) => x !== 'plain')) {
    out.push(figure(`interp.lua.${n}.overhead_pct`, '%', ratioPct(runs[n], runs.plain, 'steady')));
    out.push(figure(`interp.lua.${n}.first_overhead_pct`, '%', ratioPct(runs[n], runs.plain, 'first')));
  }
  if (runs.old) {
    out.push(figure('interp.lua.today_vs_old_pct', '%', ratioPct(runs.today, runs.old, 'steady'), { target: '<= 0' }));
    out.push(figure('interp.lua.today_vs_old.first_pct', '%', ratioPct(runs.today, runs.old, 'first'), { target: '<= 0' }));
  }
  return out;
}

export function interpSection(res, command) {
  const f = Object.fromEntries(interpFigures(res).map((x) => [x.name, x]));
  const v = (name, digits = 1) => {
    const x = f[name];
    if (!x) return '–';
    const ci = x.ci95 ? ` [${x.ci95.map((c) => c.toFixed(digits)).join(', ')}]` : '';
    return `${x.value >= 0 && x.unit === '%' ? '+' : ''}${x.value.toFixed(digits)}${x.unit === '%' ? ' %' : ` ${x.unit}`}${ci}`;
  };
  const load = (l) => l.map((x) => x.toFixed(2)).join(' / ');
  const med = (n, k) => median(res.runs[n].map((x) => x[k])).toFixed(0);
  return `## 16. Hooks on a call-dense interpreter

\`${command}\` (\`bench/interp.mjs\`, \`bench/interp/\`). ${cpus().length} cores × ${cpus()[0]?.model ?? 'unknown CPU'};
load average ${load(res.loadBefore)} before, ${load(res.loadAfter)} after; Node ${process.version}.

Lua 5.4 (Debian's sources) running \`bench/interp/lua_bench.c\`'s script (table gets and sets, string interning and
concatenation, \`table.sort\` calling a Lua comparator from C, metamethods, the collector), every C function of the
interpreter instrumented (\`-finstrument-functions\`, \`-O2\`), under Node ${process.env.WT_INTERP_SESSION === '0' ? 'with no session (WT_INTERP_SESSION=0: the hooks alone)' : 'with a session sampling at 1 kHz'}. ${res.rounds}
rounds, the builds in a rotating order; a run is ${REPS} repetitions in a fresh interpreter: the first mostly on V8's
baseline tier (as an app's startup), the fastest of the other ${REPS - 1} on optimized code (the steady time: this
machine's speed moves by up to 2× between seconds, and the minimum is least moved by it). Figures are medians of the
per-round ratios with bootstrap 95 % intervals; the table's ms are medians over rounds.

| build | steady ms (median) | first repetition ms | steady overhead vs plain | first repetition vs plain |
|---|---|---|---|---|
| plain (no hooks) | ${med('plain', 'steady')} | ${med('plain', 'first')} | – | – |
| today's library | ${med('today', 'steady')} | ${med('today', 'first')} | ${v('interp.lua.today.overhead_pct')} | ${v('interp.lua.today.first_overhead_pct')} |
| today's, after inlining (the default) | ${med('inlined', 'steady')} | ${med('inlined', 'first')} | ${v('interp.lua.inlined.overhead_pct')} | ${v('interp.lua.inlined.first_overhead_pct')} |
${res.runs.old ? `| library of ${res.base} | ${med('old', 'steady')} | ${med('old', 'first')} | ${v('interp.lua.old.overhead_pct')} | ${v('interp.lua.old.first_overhead_pct')} |
` : ''}
${res.runs.old ? `Today's against ${res.base}'s, per round: steady **${v('interp.lua.today_vs_old_pct')}**, first repetition
**${v('interp.lua.today_vs_old.first_pct')}** (target ≤ 0: the old cost or below).` : `The ${res.base} build was left out: ${res.oldWhy}.`}
`;
}

// Alone: node bench/interp.mjs
if (process.argv[1] && resolve(process.argv[1]) === thisFile) {
  const t0 = Date.now();
  const log = (m) => console.error(`wasmtrace interp bench [${((Date.now() - t0) / 1000).toFixed(0)} s]: ${m}`);
  const res = await interpBench({ log });
  const text = interpSection(res, 'node bench/interp.mjs');
  if (process.env.WT_INTERP_WRITE !== '0') {
    writeFigures(interpFigures(res));
    replaceSection('## 16. Hooks on a call-dense interpreter', stampSections(text));
  }
  console.log(text);
}
