// The `wasmtrace` command: record, report, diff and the diagnostic server's
// tools. bin/wasmtrace.mjs calls main(). This file is the argument layer
// (one strict util.parseArgs per command, per-command help, value checks)
// and the dispatcher; each command lives in lib/commands/. Exit status: 0
// done, 1 the recording failed (the message says what to do) or diff found
// something slower, 2 the command line or an input is wrong, 3 diff
// undecided with --fail-on-undecided.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { printable } from './report.mjs';
import { UsageError } from './commands/common.mjs';
import { TIERS } from './tier.mjs';
import { record, recordRepeat } from './commands/record.mjs';
import { report } from './commands/report.mjs';
import { convert } from './commands/convert.mjs';
import { diff } from './commands/diff.mjs';
import { flags, deps } from './commands/native.mjs';
import { remote } from './commands/remote.mjs';
// The browser drivers (playwright-core for Chromium, puppeteer-core for
// Firefox) are imported by `record` only (lib/browser.mjs loads them on
// launch): --help, --version and `report` work without them (a checkout
// without node_modules).

// What the commands' modules export that the package's users and tests
// import from here.
export { parseDuration, buildConfig } from './commands/common.mjs';
export { limitNotes, summarizeSession, recordBrowser } from './commands/record.mjs';

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
    --tier <mode>            how the browser compiles the app's wasm:
                             default (its own tiering: what users get) or
                             optimized (the optimizing tier from the first
                             call: Chromium --js-flags=--no-liftoff, Firefox
                             without its baseline compiler; for CI
                             comparisons). Stamped in each trace; diff
                             compares only traces of one mode
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
  tier: { type: 'string' },
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
      'browser-path', 'browser-arg', 'tier', 'port', 'no-js-profile', 'quiet', 'top', 'repeat'],
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
  if (v.tier !== undefined && !TIERS.includes(v.tier)) throw new UsageError(`--tier: '${printable(v.tier)}' is not ${TIERS.join(' or ')}`);
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
