// The parts of the `wasmtrace` command that need no browser: durations,
// the config the options build, usage errors, and `report` on the golden
// traces of every format (text and HTML).
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { buildConfig, COMMANDS, limitNotes, main, parseDuration, summarizeSession } from '../../lib/cli.mjs';
import { readProfile } from '../../lib/profile.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const tmp = mkdtempSync(join(tmpdir(), 'wasmtrace-cli-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

async function run(...argv) {
  const out = [];
  const err = [];
  const status = await main(argv, { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { status, out: out.join('\n'), err: err.join('\n') };
}

describe('options', () => {
  test('durations take us, ms, s and m; a bare number is milliseconds', () => {
    assert.equal(parseDuration('5s'), 5000);
    assert.equal(parseDuration('250us'), 0.25);
    assert.equal(parseDuration('1.5ms'), 1.5);
    assert.equal(parseDuration('2m'), 120000);
    assert.equal(parseDuration('40'), 40);
    assert.throws(() => parseDuration('soon', '--duration'), /--duration: 'soon' is not a duration/);
  });

  test('no config option leaves the page its own config', () => {
    assert.equal(buildConfig({}), null);
    assert.equal(buildConfig({ 'wait-for': 'x' }), null);
  });

  test('presets make one startup session, 5 s unless something else says when to stop', () => {
    assert.deepEqual(buildConfig({ interval: '250us' }), { sessions: [{ name: 'startup', durationMs: 5000, sampling: { intervalUs: 250 } }] });
    assert.deepEqual(buildConfig({ startup: '2s', format: 'folded' }), { sessions: [{ name: 'startup', durationMs: 2000, format: 'folded' }] });
    assert.deepEqual(buildConfig({ format: 'firefox', 'wait-for': 'done' }), { sessions: [{ name: 'startup', format: 'firefox' }] });
  });

  test('presets apply to every session of an inline --config', () => {
    const c = buildConfig({ config: '{"sessions":[{"name":"a"},{"name":"b","sampling":{"enabled":true}}]}', interval: '2ms' });
    assert.deepEqual(c.sessions, [
      { name: 'a', sampling: { intervalUs: 2000 } },
      { name: 'b', sampling: { enabled: true, intervalUs: 2000 } },
    ]);
  });

  test('--config reads a file', () => {
    const c = buildConfig({ config: join(root, 'config/example.json') });
    assert.equal(c.sessions[0].name, 'startup');
  });

  test('bad options exit with status 2 and say what is wrong', async () => {
    const cases = [
      [['record'], /give one build directory/],
      [['record', join(tmp, 'nothing-here')], /neither a directory/],
      [['record', tmp], /no index\.html/],
      [['record', root, '--page', 'README.md', '--format', 'xml'], /--format: 'xml'/],
      [['record', root, '--page', 'README.md', '--config', '{"nope":1}'], /"sessions" array/],
      [['report'], /give one trace file/],
      [['frobnicate'], /unknown command/],
      [['record', '--no-such-option'], /^wasmtrace record: unknown option '--no-such-option' \(wasmtrace help record\)$/],
    ];
    for (const [argv, message] of cases) {
      const r = await run(...argv);
      assert.equal(r.status, 2, argv.join(' '));
      assert.match(r.err, message, argv.join(' '));
    }
  });

  test('--help prints both commands', async () => {
    const r = await run('--help');
    assert.equal(r.status, 0);
    assert.match(r.out, /wasmtrace record/);
    assert.match(r.out, /wasmtrace report/);
  });
});

// Per-command help and strict options (issue 42): every command has its
// own help (usage, its options, an example), refuses another command's
// options and unknown ones naming both, and checks its number values; each
// is one line and exit status 2.
describe('each command, its own help and options', () => {
  const help = async (...argv) => run(...argv);
  for (const command of Object.keys(COMMANDS)) {
    test(`${command}: 'wasmtrace help ${command}', '${command} --help' and '-h' print its usage, its options and an example`, async () => {
      const a = await help('help', command);
      const b = await help(command, '--help');
      const c = await help(command, '-h');
      for (const r of [a, b, c]) assert.equal(r.status, 0, r.err);
      assert.equal(b.out, a.out);
      assert.equal(c.out, a.out);
      assert.match(a.out, new RegExp(`^usage:\\n {2}wasmtrace ${command}\\b`));
      assert.match(a.out, /\nexample:\n {2}\S/);
      // Its options are in it, and it is not the whole reference.
      for (const o of COMMANDS[command].options) assert.match(a.out, new RegExp(`--${o}\\b`), `${command}: --${o} is not in its help`);
      const whole = await help('--help');
      assert.ok(a.out.split('\n').length < whole.out.split('\n').length / 2, `${command}'s help is most of the whole`);
    });
  }

  test("another command's option is refused, naming the option and the commands that take it", async () => {
    const r = await run('report', join(root, 'tests/golden/chrome.json'), '--repeat', '3', '--browser', 'firefox');
    assert.equal(r.status, 2);
    assert.equal(r.out, '');
    assert.equal(r.err, 'wasmtrace report: --repeat is an option of record, not of report (wasmtrace help report)');
    const f = await run('flags', '--cflags', '--thread', 'main');
    assert.equal(f.err, 'wasmtrace flags: --thread is an option of report, convert, not of flags (wasmtrace help flags)');
    const d = await run('deps', '-o', 'x');
    assert.match(d.err, /^wasmtrace deps: --out is an option of record, convert, serve, collect, not of deps/);
  });

  // Issue 38, class 12: deps trusted WASMTRACE_*_DIR that did not exist (exit 0).
  test("deps refuses source directories that do not hold the sources, naming the variable", () => {
    const r = spawnSync(process.execPath, [join(root, 'bin/wasmtrace.mjs'), 'deps'], {
      encoding: 'utf8', env: { ...process.env, WASMTRACE_CJSON_DIR: join(tmp, 'nope'), WASMTRACE_ZLIB_DIR: join(tmp, 'nope2') },
    });
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stderr, /^wasmtrace deps: WASMTRACE_CJSON_DIR=.*nope has no cJSON\.c: point it at the unpacked sources\n$/);
    assert.equal(r.stdout, '');
  });

  test('values are checked: --top, --port, --repeat, --min-share', async () => {
    const golden = join(root, 'tests/golden/chrome.json');
    for (const [argv, message] of [
      [['report', golden, '--top', 'abc'], /^wasmtrace report: --top: 'abc' is not a whole number from 1 to 100000/],
      [['report', golden, '--top', '-1'], /^wasmtrace report: /],
      [['report', golden, '--top', '1e309'], /--top: '1e309' is not a whole number/],
      [['report', golden, '--top', ''], /--top: '' is not a whole number/],
      [['record', 'x', '--port', '70000'], /^wasmtrace record: --port: '70000' is not a whole number from 0 to 65535/],
      [['record', 'x', '--repeat', '0'], /--repeat: '0' is not a whole number from 1 to 1000/],
      [['diff', 'a', 'b', '--min-share', '0x10'], /^wasmtrace diff: --min-share: '0x10' is not a percentage/],
      [['diff', 'a', 'b', '--min-share', ''], /--min-share: '' is not a percentage/],
      [['report', golden, '--top', '\u001b]0;x\u0007'], /--top: '\\x1b\]0;x\\x07' is not/],
    ]) {
      const r = await run(...argv);
      assert.equal(r.status, 2, argv.join(' '));
      assert.match(r.err, message, argv.join(' '));
      assert.equal(r.err.split('\n').length, 1, r.err);
    }
  });

  test("the command comes first; 'help' alone is the whole reference; an unknown one is named", async () => {
    const first = await run('--quiet', 'record', 'x');
    assert.equal(first.status, 2);
    assert.match(first.err, /^wasmtrace: give the command first, then its options \('--quiet' came first/);
    const all = await run('help');
    assert.equal(all.status, 0);
    assert.equal(all.out, (await run('--help')).out);
    const nope = await run('help', 'frob');
    assert.equal(nope.status, 2);
    assert.match(nope.err, /^wasmtrace: help: 'frob' is not a command \(record, report, /);
  });
});

describe('wasmtrace report', () => {
  for (const file of ['chrome.json', 'firefox.json', 'folded.txt']) {
    test(`reads ${file}: per thread, top functions by self and by total time`, async () => {
      const r = await run('report', join(root, 'tests/golden', file));
      assert.equal(r.status, 0, r.err);
      assert.match(r.out, /sampling every 1000 us; 2 threads, 10 samples/);
      // main's one partial sample (its stack moved during every copy) is
      // kept and counted.
      assert.match(r.out, /thread 'main' .*: 5 samples = 5\.0 ms sampled, 1 idle \(20\.0%\), 1 partial stack \(20\.0%\)\n/);
      assert.match(r.out, /by self time:\n.*wait ms.*function\n\s+3\.0\s+60\.0%\s+0\.0\s+3\.0\s+60\.0%\s+function\[7\]/);
      assert.match(r.out, /by total time:\n.*function\n\s+0\.0\s+0\.0%\s+0\.0\s+4\.0\s+80\.0%\s+parse/);
      // The decoder thread's one waiting sample: a waiting share, and the
      // frame it waited in has it as self time spent waiting.
      assert.match(r.out, /thread 'decoder.*: 5 samples = 5\.0 ms sampled, 0 idle \(0\.0%\), 1 waiting \(20\.0%\)\n/);
      assert.match(r.out, /\n\s+3\.0\s+60\.0%\s+1\.0\s+3\.0\s+60\.0%\s+new( |\\n)line\n/);
      assert.match(r.out, /dropped 1 \(buffer full 0, torn stack 1\), partial stack 1 \(kept\)/);
    });
  }

  test('--html writes a page with the data of every thread', async () => {
    const html = join(tmp, 'r.html');
    const r = await run('report', join(root, 'tests/golden/firefox.json'), '--html', html);
    assert.equal(r.status, 0, r.err);
    const page = readFileSync(html, 'utf8');
    const data = JSON.parse(page.match(/<script type="application\/json" id="wasmtrace-data">(.*?)<\/script>/s)[1]);
    assert.equal(data.threads.length, 2);
    assert.equal(data.threads[0].name, 'main');
    assert.equal(data.threads[0].total, 5);
  });

  test('a file that is no trace exits with status 2 (bad input) and says why', async () => {
    const r = await run('report', join(root, 'package.json'));
    assert.equal(r.status, 2);
    assert.match(r.err, /cannot read .*package\.json: not a trace/);
  });
});

describe('without node_modules (a plain checkout)', () => {
  // bin/, lib/, js/ and package.json alone, where no node_modules is above
  // and NODE_PATH is empty: the browser driver cannot be resolved.
  const bare = join(tmp, 'bare');
  for (const part of ['bin', 'lib', 'js', 'package.json']) cpSync(join(root, part), join(bare, part), { recursive: true });
  const cli = (...args) => spawnSync(process.execPath, [join(bare, 'bin/wasmtrace.mjs'), ...args],
    { cwd: tmp, encoding: 'utf8', env: { ...process.env, NODE_PATH: '' } });

  test('the browser driver really is unresolvable there', () => {
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', "await import('playwright-core')"],
      { cwd: bare, encoding: 'utf8', env: { ...process.env, NODE_PATH: '' } });
    assert.notEqual(r.status, 0);
    assert.match(r.stderr, /ERR_MODULE_NOT_FOUND|Cannot find package/);
  });

  test('--help and --version work', () => {
    const help = cli('--help');
    assert.equal(help.status, 0, help.stderr);
    assert.match(help.stdout, /^wasmtrace \d+\.\d+\.\d+: record and read traces/);
    const version = cli('--version');
    assert.equal(version.status, 0, version.stderr);
    assert.equal(version.stdout.trim(), JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version);
  });

  test('report works', () => {
    const html = join(tmp, 'bare-report.html');
    const r = cli('report', join(root, 'tests/golden/chrome.json'), '--html', html);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /thread 'main'/);
    assert.match(readFileSync(html, 'utf8'), /<svg|flame/);
  });

  test('record says what it needs instead of a stack trace', () => {
    mkdirSync(join(tmp, 'page'), { recursive: true });
    writeFileSync(join(tmp, 'page/index.html'), '<!doctype html>');
    const r = cli('record', join(tmp, 'page'));
    assert.equal(r.status, 1);
    assert.match(r.stderr, /^wasmtrace: record needs the browser driver playwright-core \(npm install\)/);
  });
});

describe('limits the trace states are shown with what to do', () => {
  // The golden chrome trace with the counts of a recording that hit limits.
  const limited = join(tmp, 'limited.json');
  before(() => {
    const text = readFileSync(join(root, 'tests/golden/chrome.json'), 'utf8')
      .replace('"threadsNotRegistered":0', '"threadsNotRegistered":44')
      .replace('"bufferFull":0', '"bufferFull":7');
    assert.match(text, /"threadsNotRegistered":44/);
    writeFileSync(limited, text);
  });

  test('report names the threads the registry refused, and the samples dropped for want of room', async () => {
    const r = await run('report', limited);
    assert.equal(r.status, 0, r.err);
    assert.match(r.out, /limit: 44 thread\(s\) were not recorded: the thread registry was full .*reuse threads/);
    assert.match(r.out, /limit: 7 sample\(s\) dropped because the session's buffer was full: raise maxBufferKB/);
  });

  test('a trace that hit no limit says nothing about limits', async () => {
    const r = await run('report', join(root, 'tests/golden/chrome.json'));
    assert.doesNotMatch(r.out, /limit:/);
  });

  test("record's summary names them too (from the trace, or from the page's stats)", () => {
    const profile = readProfile(readFileSync(limited));
    const r = { name: 'startup', state: 'stopped', file: null, bytes: Buffer.alloc(10), stats: { threads: 256 }, profile };
    const text = summarizeSession(r).join('\n');
    assert.match(text, /\n {2}limit: 44 thread\(s\) were not recorded/);
    assert.deepEqual(limitNotes(undefined, undefined), []);
    assert.match(limitNotes({}, { threadsRefused: 3 })[0], /^3 thread\(s\) were not recorded/);
    assert.match(limitNotes({ threadsRefused: 2, dropped: {} })[0], /^2 thread\(s\)/);
  });

  test("record's summary says why a session stopped early, from the trace's stats record", () => {
    const profile = readProfile(readFileSync(limited));
    const why = "the app's heap ran low: 1500 KiB free, below the 2300 KiB wasmtrace keeps free for the app";
    const early = { ...profile, stats: { ...profile.stats, stoppedEarly: why } };
    const r = { name: 'startup', state: 'stopped', file: null, bytes: Buffer.alloc(10), stats: {}, profile: early };
    assert.ok(summarizeSession(r).includes(`  stopped early: ${why}`), summarizeSession(r).join('\n'));
    assert.ok(!summarizeSession({ ...r, profile }).some((l) => l.includes('stopped early')));
  });
});
